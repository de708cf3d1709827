package testsupport

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update is the one -update flag of the golden tests: `go test ./PKG
// -update` rewrites PKG's golden files from the current output. A test
// package that imports testsupport must not define its own -update flag.
var update = flag.Bool("update", false, "rewrite the golden files from the current output")

// Updating reports whether the test runs with -update, for a test that
// refreshes other fixtures along with its golden files.
func Updating() bool { return *update }

// Golden compares got with the golden file at path (relative to the
// package's directory, e.g. testdata/summary.md.golden). With -update it
// writes got there instead (creating its directory). On a mismatch it
// fails the test with a line diff of the first difference.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update in this package to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; if the change is intended, run go test -update in this package and review the diff:\n%s", path, Diff(string(want), string(got)))
	}
}

// diffContext is how many equal lines Diff shows around the difference;
// diffMax caps the differing lines shown from each side.
const (
	diffContext = 3
	diffMax     = 20
)

// Diff is a readable line diff of want and got ("" when equal): the lines
// between their common start and common end, want's prefixed "-" and
// got's "+", each with its line number, and a few equal lines around
// them. It shows one hunk, from the first differing line to the last.
func Diff(want, got string) string {
	if want == got {
		return ""
	}
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	pre := 0
	for pre < len(w) && pre < len(g) && w[pre] == g[pre] {
		pre++
	}
	suf := 0
	for suf < len(w)-pre && suf < len(g)-pre && w[len(w)-1-suf] == g[len(g)-1-suf] {
		suf++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "first difference at line %d (want %d lines, got %d)\n", pre+1, len(w), len(g))
	line := func(mark string, n int, s string) { fmt.Fprintf(&b, "%s%5d  %s\n", mark, n, s) }
	side := func(mark string, ls []string, from int) {
		for i, s := range ls[from : len(ls)-suf] {
			if i == diffMax {
				fmt.Fprintf(&b, "%s       … %d more line(s)\n", mark, len(ls)-suf-from-diffMax)
				break
			}
			line(mark, from+i+1, s)
		}
	}
	for i := max(0, pre-diffContext); i < pre; i++ {
		line(" ", i+1, w[i])
	}
	side("-", w, pre)
	side("+", g, pre)
	for i := len(w) - suf; i < len(w) && i < len(w)-suf+diffContext; i++ {
		line(" ", i+1, w[i])
	}
	return strings.TrimSuffix(b.String(), "\n")
}
