package collect

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestReadFileReadsWholeFiles(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("0123456789abcdef"), 1000) // past the first 4 KiB buffer
	for name, want := range map[string][]byte{"empty": nil, "small": []byte("usage_usec 12\n"), "big": big} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, want, 0o600); err != nil {
			t.Fatal(err)
		}
		if got, err := readFile(path); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, %v; want %d", name, len(got), err, len(want))
		}
	}
	// procfs files report size 0: read to the end all the same.
	if got, err := readFile("/proc/self/status"); err != nil || !bytes.Contains(got, []byte("VmRSS")) {
		t.Errorf("/proc/self/status: %q %v", got, err)
	}
	if _, err := readFile(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
}
