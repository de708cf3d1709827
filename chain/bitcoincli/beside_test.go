package bitcoincli

import (
	"os"
	"path/filepath"
	"testing"
)

func TestBeside(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "lnbench")
	if got := Beside(exe); got != exe {
		t.Errorf("no shim beside: %q, want lnbench itself", got)
	}
	shim := filepath.Join(dir, StandaloneName)
	if err := os.WriteFile(shim, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := Beside(exe); got != exe {
		t.Errorf("a shim that cannot run: %q, want lnbench itself", got)
	}
	if err := os.Chmod(shim, 0o700); err != nil {
		t.Fatal(err)
	}
	if got := Beside(exe); got != shim {
		t.Errorf("Beside = %q, want %q", got, shim)
	}
}
