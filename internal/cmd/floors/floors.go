package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

const module = "github.com/lnbench/lnbench/"

// moduleImports maps each package (its path in the module) to the module's
// packages its non-test files import.
func moduleImports(root string) (map[string][]string, error) {
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || (strings.HasPrefix(d.Name(), ".") && path != root)) {
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
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if target, ok := strings.CutPrefix(p, module); ok && !slices.Contains(out[pkg], target) {
				out[pkg] = append(out[pkg], target)
			}
		}
		return nil
	})
	return out, err
}

// floorsOf lists the packages of each floor, sorted: a package stands one
// floor above the highest package it imports.
func floorsOf(imports map[string][]string) [][]string {
	floor := map[string]int{}
	var of func(p string, seen []string) int
	of = func(p string, seen []string) int {
		if f, ok := floor[p]; ok {
			return f
		}
		if slices.Contains(seen, p) {
			return 0 // a cycle: Go refuses to build it, so never here
		}
		f := 0
		for _, d := range imports[p] {
			f = max(f, 1+of(d, append(seen, p)))
		}
		floor[p] = f
		return f
	}
	var out [][]string
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for p := range imports {
			if !yield(p) {
				return
			}
		}
	}) {
		f := of(p, nil)
		for len(out) <= f {
			out = append(out, nil)
		}
		out[f] = append(out[f], p)
	}
	return out
}

// draw renders the floors top down, one line each.
func draw(floors [][]string) string {
	var b strings.Builder
	b.WriteString("```\n")
	for f := len(floors) - 1; f >= 0; f-- {
		fmt.Fprintf(&b, "%d  %s\n", f, strings.Join(floors[f], " "))
	}
	b.WriteString("```\n")
	return b.String()
}

const (
	startMarker = "<!-- floors: drawn by go run ./internal/cmd/floors -w -->\n"
	endMarker   = "<!-- /floors -->\n"
)

// drawn is the drawing held in ARCHITECTURE.md between the markers.
func drawn(doc []byte) (string, error) {
	i, j := bytes.Index(doc, []byte(startMarker)), bytes.Index(doc, []byte(endMarker))
	if i < 0 || j < i {
		return "", errors.New("ARCHITECTURE.md has no floors markers")
	}
	return string(doc[i+len(startMarker) : j]), nil
}

// rewrite replaces the drawing in ARCHITECTURE.md.
func rewrite(root, drawing string) error {
	path := filepath.Join(root, "ARCHITECTURE.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	old, err := drawn(doc)
	if err != nil {
		return err
	}
	doc = bytes.Replace(doc, []byte(startMarker+old+endMarker), []byte(startMarker+drawing+endMarker), 1)
	return os.WriteFile(path, doc, 0o644)
}
