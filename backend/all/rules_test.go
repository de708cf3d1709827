package all

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/backend/driver"
)

// Backends are found by name and asked what they can do: outside the
// backend packages (and this registration), no Go file imports a concrete
// backend or spells a backend's name as a string of its own. Tests and
// the e2e package name backends as data and are not checked.
func TestNoBackendNamesOutsideTheBackends(t *testing.T) {
	names := driver.Names(nil)
	if len(names) < 3 {
		t.Fatalf("registered backends: %v", names)
	}
	root := filepath.Join("..", "..")
	const module = "github.com/lnbench/lnbench/"
	fset := token.NewFileSet()
	var bad []string
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "backend" || rel == "e2e" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, n := range names {
				if p == module+"backend/"+n {
					bad = append(bad, fset.Position(imp.Pos()).String()+": imports the "+n+" backend")
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if v, err := strconv.Unquote(lit.Value); err == nil && slices.Contains(names, v) {
				bad = append(bad, fset.Position(lit.Pos()).String()+": the backend name "+lit.Value)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("walked %d Go files: not the repository", files)
	}
	for _, b := range bad {
		t.Errorf("%s: find the backend with backend/driver and ask its capabilities", b)
	}
}

// Every registered backend answers for itself: a name, a probe, and a fix
// when a backend's probe can fail.
func TestRegisteredBackends(t *testing.T) {
	auto := map[int]string{}
	for _, n := range driver.Names(nil) {
		d, ok := driver.Lookup(n)
		if !ok || d.Name() != n {
			t.Errorf("%s: registered as %q", n, d.Name())
		}
		if r := d.Caps().Auto; r > 0 {
			if other, dup := auto[r]; dup {
				t.Errorf("%s and %s share auto rank %d", n, other, r)
			}
			auto[r] = n
		}
	}
	if len(auto) == 0 {
		t.Error("no backend is chosen by --backend auto")
	}
}
