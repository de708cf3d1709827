package testsupport

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// groundFloorExceptions are the deliberate imports from internal/ into the
// library (ARCHITECTURE.md names them): test doubles of the library's own
// interfaces, and the simulator that writes the library's records.
var groundFloorExceptions = map[string][]string{
	"internal/fakenet":  {"backend", "node"},
	"internal/simulate": {"faults", "record/result"},
}

// TestInternalIsTheGroundFloor: packages under internal/ serve the others
// and import only each other (and the exceptions above); the command layer
// lives above the library, in cli/.
func TestInternalIsTheGroundFloor(t *testing.T) {
	const module = "github.com/lnbench/lnbench/"
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var up []string
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			target, ok := strings.CutPrefix(p, module)
			if !ok || strings.HasPrefix(target, "internal/") || contains(groundFloorExceptions[pkg], target) {
				continue
			}
			up = append(up, pkg+" → "+target)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(up)
	for _, u := range up {
		t.Errorf("%s: an import upward from the ground floor; move the code to the package whose domain it is, or name the exception here and in ARCHITECTURE.md", u)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
