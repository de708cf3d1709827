package nodebuild

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeyFollowsContent(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "go.sum"), []byte(""), 0o644)
	spec := Spec{Implementation: "lnd", Version: "v0", ModuleDir: dir}
	a, err := Key(spec)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Key(spec)
	os.WriteFile(filepath.Join(dir, "go.sum"), []byte("x v1 h1:abc\n"), 0o644)
	c, _ := Key(spec)
	if a != b || a == c || len(a) != 16 {
		t.Fatalf("keys %s %s %s", a, b, c)
	}
}

func TestLocateTellsTheFix(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "go.sum"), []byte(""), 0o644)
	_, err := Locate(t.TempDir(), Spec{Implementation: "lnd", Version: "v0", ModuleDir: dir})
	if err == nil || !strings.Contains(err.Error(), "not built yet") || !strings.Contains(err.Error(), "lnbench build") {
		t.Fatalf("err %v", err)
	}
	if _, err := Find(t.TempDir(), "lnd", "v9"); err == nil || !strings.Contains(err.Error(), "add a folder") {
		t.Fatalf("find: %v", err)
	}
}
