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

// A line longer than LND pays through is refused before anything is
// built, in one line naming the flag that lifts the limit.
func TestRunRefusesARouteLNDWouldNotPay(t *testing.T) {
	cache, arts := t.TempDir(), filepath.Join(t.TempDir(), "arts")
	var out, errw bytes.Buffer
	file := filepath.Join("..", "bench", "scenarios", "CLNBenchLongForwardPayment.yml")
	err := Run(t.Context(), &out, &errw, []string{"run", file, "--backend", "local", "--cache", cache, "--artifacts", arts,
		"--node", "lnd@v0.21.0-beta", "--yes"})
	if err == nil || !strings.Contains(err.Error(), "alice→bob is 20 hops") || !strings.Contains(err.Error(), "--routerrpc.minrtprob=") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("a 21-node LND line: %v, want one line naming the hops and the flag", err)
	}
	if ents, _ := os.ReadDir(cache); len(ents) > 0 {
		t.Errorf("the cache holds %d entries after the refusal", len(ents))
	}
	if _, err := os.Stat(arts); !os.IsNotExist(err) {
		t.Errorf("artifacts folder made for a refused run: %v", err)
	}
	// Its counterpart, with the floor lowered, plans.
	file = filepath.Join("..", "bench", "scenarios", "LNDBenchLongForwardPayment.yml")
	if err := Run(t.Context(), &out, &errw, []string{"run", file, "--plan", "--backend", "local", "--cache", cache, "--artifacts", arts}); err != nil {
		t.Errorf("LNDBenchLongForwardPayment.yml: %v", err)
	}
}
