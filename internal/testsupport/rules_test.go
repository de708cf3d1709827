package testsupport

import (
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2ESkipsGoThroughTheGates fails on a raw t.Skip, t.Skipf or
// t.SkipNow in an e2e-tagged test file: such a skip stays quiet in CI,
// where a missing prerequisite must fail the test (RequireOrSkip), and the
// opt-in slow tier has its own gate (SlowTier).
func TestE2ESkipsGoThroughTheGates(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var raw []string
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || path == filepath.Join(root, "internal", "testsupport")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if !e2eTagged(f) {
			return nil
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				switch sel.Sel.Name {
				case "Skip", "Skipf", "SkipNow":
					raw = append(raw, fset.Position(call.Pos()).String())
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("found no e2e-tagged test file: the walk is looking in the wrong place")
	}
	for _, at := range raw {
		t.Errorf("%s: a raw skip in an e2e-tagged file; use testsupport.RequireOrSkip (a prerequisite: fails in CI) or testsupport.SlowTier", at)
	}
}

// e2eTagged reports whether the file's build constraint needs the e2e tag.
func e2eTagged(f *ast.File) bool {
	for _, g := range f.Comments {
		if g.Pos() > f.Package {
			break
		}
		for _, c := range g.List {
			expr, err := constraint.Parse(c.Text)
			if err != nil {
				continue
			}
			if expr.Eval(func(tag string) bool { return tag != "e2e" }) != expr.Eval(func(string) bool { return true }) {
				return true
			}
		}
	}
	return false
}
