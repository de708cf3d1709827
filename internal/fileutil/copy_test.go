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

func TestNonEmpty(t *testing.T) {
	dir := t.TempDir()
	empty, full := filepath.Join(dir, "empty"), filepath.Join(dir, "full")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{empty: false, full: true, filepath.Join(dir, "none"): false} {
		if got := NonEmpty(path); got != want {
			t.Errorf("NonEmpty(%s) = %v", filepath.Base(path), got)
		}
	}
}
