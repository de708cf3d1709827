package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --plan prints the plan and stops: nothing built, no run folder.
func TestPlanBuildsAndStartsNothing(t *testing.T) {
	cache, arts := t.TempDir(), filepath.Join(t.TempDir(), "arts")
	var out, errw bytes.Buffer
	err := Run(t.Context(), &out, &errw, []string{"run", "--plan", "--backend", "local", "--cache", cache, "--artifacts", arts,
		"--node", "a=lnd@v0.21.0-beta", "--node", "b=lnd@v0.21.0-beta+profile=tuned", "--baseline", "a"})
	if err != nil {
		t.Fatal(err, errw.String())
	}
	for _, want := range []string{"8 case(s) × 6 launch(es) on 48 network(s)", "LaunchCount=6 per spec", "plan only (--plan): nothing built or started"} {
		if !strings.Contains(errw.String(), want) {
			t.Errorf("no %q in:\n%s", want, errw.String())
		}
	}
	if ents, _ := os.ReadDir(cache); len(ents) > 0 {
		t.Errorf("the cache holds %d entries after --plan", len(ents))
	}
	if _, err := os.Stat(arts); !os.IsNotExist(err) {
		t.Errorf("artifacts folder made by --plan: %v", err)
	}
}
