package scenario

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/internal/testsupport"
)

// docs/scenarios.md is the reference for scenario files: every key a file
// may hold, every known param and every job setting has a row in one of
// its tables, so adding one without documenting it fails here.
func TestScenarioReferenceListsEveryKeyParamAndJobSetting(t *testing.T) {
	data, err := os.ReadFile("../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	row := func(name string) bool { return strings.Contains(doc, "\n| `"+name+"` |") }
	ft := reflect.TypeOf(file{})
	for i := range ft.NumField() {
		key, _, _ := strings.Cut(ft.Field(i).Tag.Get("yaml"), ",")
		if !row(key) {
			t.Errorf("docs/scenarios.md has no row for the scenario key %q (Keys table)", key)
		}
	}
	for _, j := range JobSettings {
		if !row(j) {
			t.Errorf("docs/scenarios.md has no row for the job setting %s (Job settings table)", j)
		}
	}
}

// The Params table of docs/scenarios.md is ParamsMarkdown's output, so it
// cannot drift from scenario.Known; -update rewrites it.
func TestParamsTableIsGenerated(t *testing.T) {
	const path = "../docs/scenarios.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	start := strings.Index(doc, "| param | default | values | what it does |")
	if start < 0 {
		t.Fatal("docs/scenarios.md has no Params table (| param | default | values | what it does |)")
	}
	end := strings.Index(doc[start:], "\n\n")
	if end < 0 {
		end = len(doc) - start
	}
	got, want := doc[start:start+end+1], ParamsMarkdown()
	if got == want {
		return
	}
	if testsupport.Updating() {
		if err := os.WriteFile(path, []byte(doc[:start]+want+doc[start+end+1:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/scenarios.md's Params table differs from scenario.Known (go test ./scenario -update rewrites it):\n%s", testsupport.Diff(want, got))
}
