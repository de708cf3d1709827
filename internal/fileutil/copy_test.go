package fileutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCopy(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(src, []byte("payload"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, []byte("longer old content"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Copy(src, dst, 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(dst)
	if string(got) != "payload" {
		t.Fatalf("dst = %q, want the source's bytes (truncated)", got)
	}
	if err := Copy(filepath.Join(dir, "missing"), dst, 0o644); !os.IsNotExist(err) {
		t.Fatalf("missing source: err = %v, want not-exist", err)
	}
}
