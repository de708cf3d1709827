package nodebuild

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

const overlayTestMod = "module example.com/m\n\ngo 1.24\n\nrequire example.com/dep v1.2.0\n"

// writeFiles writes files (slash path → content) under root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fakeRelease puts version of example.com/m in a module cache: its go.mod
// in cache/download and, unless files is nil, its source extracted.
func fakeRelease(t *testing.T, cache, version, goMod string, files map[string]string) string {
	t.Helper()
	writeFiles(t, filepath.Join(cache, "cache", "download", "example.com", "m", "@v"), map[string]string{version + ".mod": goMod})
	dir := filepath.Join(cache, "example.com", "m@"+version)
	if files != nil {
		writeFiles(t, dir, files)
		writeFiles(t, dir, map[string]string{"go.mod": goMod})
	}
	return dir
}

var releaseFiles = map[string]string{
	"a.go": "package m // a", "a_test.go": "package m // test",
	"sub/b.go": "package sub", "embed/page.html": "<p>",
	"nested/go.mod": "module example.com/m/nested\n", "nested/x.go": "package nested",
}

// tree is a copy of releaseFiles with edits applied (content "" deletes).
func tree(t *testing.T, goMod string, edits map[string]string) string {
	t.Helper()
	files := map[string]string{"go.mod": goMod}
	for k, v := range releaseFiles {
		files[k] = v
	}
	for k, v := range edits {
		if v == "" {
			delete(files, k)
		} else {
			files[k] = v
		}
	}
	dir := t.TempDir()
	writeFiles(t, dir, files)
	return dir
}

func TestOverlayReadsTheReleaseAsTheTree(t *testing.T) {
	cache := t.TempDir()
	base := fakeRelease(t, cache, "v1.0.0", overlayTestMod, releaseFiles)
	src := tree(t, overlayTestMod, map[string]string{
		"a.go": "package m // edited", "c.go": "package m // added", "sub/b.go": "",
		// Neither reaches a binary the overlay builds: tests, history,
		// and a nested module (a module of its own).
		"a_test.go": "package m // edited test", ".git/HEAD": "ref", "nested/x.go": "package nested // edited",
	})
	got, ok, err := findOverlayBase(src, cache, "example.com/m")
	if err != nil || !ok {
		t.Fatalf("findOverlayBase: ok %v, %v", ok, err)
	}
	want := map[string]string{"a.go": filepath.Join(src, "a.go"), "c.go": filepath.Join(src, "c.go"), "sub/b.go": ""}
	if got.Version != "v1.0.0" || got.Dir != base || !reflect.DeepEqual(got.Replace, want) || got.Files() != 3 || !got.Tree["c.go"] || got.Tree["a_test.go"] {
		t.Errorf("got %+v, want v1.0.0 at %s with %v", got, base, want)
	}
}

func TestOverlayPicksTheNearestReleaseWithTheSameGoMod(t *testing.T) {
	cache := t.TempDir()
	fakeRelease(t, cache, "v1.0.0-rc1", overlayTestMod, map[string]string{"a.go": "package m // rc1", "sub/b.go": "package sub // rc1"})
	fakeRelease(t, cache, "v1.0.0", overlayTestMod, releaseFiles)
	// Same go.mod, source never extracted: not a base.
	fakeRelease(t, cache, "v1.0.1", overlayTestMod, nil)
	// Another module graph: not a base either, however close its files.
	other := overlayTestMod + "require example.com/dep2 v0.1.0\n"
	fakeRelease(t, cache, "v1.1.0", other, releaseFiles)
	src := tree(t, overlayTestMod, map[string]string{"a.go": "package m // edited"})
	got, ok, err := findOverlayBase(src, cache, "example.com/m")
	if err != nil || !ok || got.Version != "v1.0.0" || got.Files() != 1 {
		t.Errorf("got %+v (ok %v, %v), want v1.0.0 with one file overlaid", got, ok, err)
	}
}

func TestOverlayRefusesTreesItCannotBuildAsARelease(t *testing.T) {
	cache := t.TempDir()
	fakeRelease(t, cache, "v1.0.0", overlayTestMod, releaseFiles)
	localReplace := overlayTestMod + "\nreplace example.com/dep => ./dep\n"
	fakeRelease(t, cache, "v1.0.2", localReplace, releaseFiles)
	linked := tree(t, overlayTestMod, nil)
	if err := os.Symlink("a.go", filepath.Join(linked, "link.go")); err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{
		"a go.mod no release has": tree(t, overlayTestMod+"// edited\n", nil),
		"a local replace":         tree(t, localReplace, nil),
		"a symlink":               linked,
	} {
		if got, ok, err := findOverlayBase(src, cache, "example.com/m"); err != nil || ok {
			t.Errorf("%s: got %+v (ok %v, %v), want no base", name, got, ok, err)
		}
	}
	if _, ok, err := findOverlayBase(tree(t, overlayTestMod, nil), t.TempDir(), "example.com/m"); err != nil || ok {
		t.Errorf("an empty module cache: ok %v, %v; want no base", ok, err)
	}
}

func TestListPackagesAddsTheTreesUnvendoredPackages(t *testing.T) {
	p := filepath.Join(t.TempDir(), "modules.txt")
	before := "# example.com/dep v1.2.0\n## explicit\nexample.com/dep\n# example.com/m v1.0.0\n## explicit; go 1.24\nexample.com/m\nexample.com/m/sub\n"
	writeFiles(t, filepath.Dir(p), map[string]string{"modules.txt": before})
	tree := map[string]bool{"a.go": true, "sub/b.go": true, "mock/clock.go": true, "mock/README.md": true, "docs/x.md": true}
	if err := listPackages(p, "example.com/m", "v1.0.0", tree); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	want := "# example.com/dep v1.2.0\n## explicit\nexample.com/dep\n# example.com/m v1.0.0\n## explicit; go 1.24\nexample.com/m/mock\nexample.com/m\nexample.com/m/sub\n"
	if string(data) != want {
		t.Errorf("modules.txt:\n%s\nwant:\n%s", data, want)
	}
	if err := listPackages(p, "example.com/other", "v1.0.0", map[string]bool{"x.go": true}); err == nil {
		t.Error("a module modules.txt lacks: no error")
	}
}
