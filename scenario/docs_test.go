package scenario

import (
	"os"
	"reflect"
	"strings"
	"testing"
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
	for _, p := range Known {
		if !row(p.Name) {
			t.Errorf("docs/scenarios.md has no row for the param %s (Params table)", p.Name)
		}
		if p.Default != "" && !strings.Contains(doc, "\n| `"+p.Name+"` | "+p.Default+" |") && !strings.Contains(doc, "\n| `"+p.Name+"` | `"+p.Default+"` |") {
			t.Errorf("docs/scenarios.md: the param %s's default is %s in scenario.Known; its row says otherwise", p.Name, p.Default)
		}
	}
	for _, j := range JobSettings {
		if !row(j) {
			t.Errorf("docs/scenarios.md has no row for the job setting %s (Job settings table)", j)
		}
	}
}
