package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestFloorsOf(t *testing.T) {
	got := floorsOf(map[string][]string{
		"cli":     {"runner", "report"},
		"runner":  {"backend", "record"},
		"report":  {"record"},
		"record":  {"stats"},
		"stats":   nil,
		"backend": nil,
	})
	want := [][]string{{"backend", "stats"}, {"record"}, {"report", "runner"}, {"cli"}}
	if len(got) != len(want) {
		t.Fatalf("floors %v, want %v", got, want)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("floor %d: %v, want %v", i, got[i], want[i])
		}
	}
}

// ARCHITECTURE.md's drawing is the module's as it is now.
func TestArchitectureDrawsTheFloorsAsTheyAre(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	imports, err := moduleImports(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 50 || imports["cli"] == nil {
		t.Fatalf("read %d packages from %s: not the module", len(imports), root)
	}
	doc, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	held, err := drawn(doc)
	if err != nil {
		t.Fatal(err)
	}
	if now := draw(floorsOf(imports)); held != now {
		t.Errorf("ARCHITECTURE.md's floors are stale; redraw them with `go run ./internal/cmd/floors -w`:\nheld:\n%s\nnow:\n%s", held, now)
	}
}
