package testsupport

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EFilesCarryTheTag keeps the e2e gate one way: every file of the e2e
// package and every *_e2e_test.go builds only with -tags e2e, and no other
// file uses the tag.
func TestE2EFilesCarryTheTag(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		first, _, _ := strings.Cut(string(data), "\n")
		tagged := first == "//go:build e2e"
		switch {
		case rel == filepath.Join("e2e", "gate_test.go"):
			if first != "//go:build !e2e" {
				t.Errorf("%s: first line %q, want //go:build !e2e", rel, first)
			}
		case strings.HasPrefix(rel, "e2e"+string(filepath.Separator)) || strings.HasSuffix(rel, "_e2e_test.go"):
			if !tagged {
				t.Errorf("%s: an e2e test file must start with //go:build e2e (first line is %q)", rel, first)
			}
		case strings.Contains(first, "e2e"):
			t.Errorf("%s: only e2e tests (e2e/ and *_e2e_test.go) carry the e2e tag", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
