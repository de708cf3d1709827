package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/topology"
)

func TestGeneratedGraphIsRecordedAsATopologyFile(t *testing.T) {
	s, err := scenario.Parse([]byte("name: G\ntopology: scalefree\nparams:\n  NodeCount: 12\n  Seed: 5\n  Concurrency: [1, 4]\n"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := writeScenario(dir, s); err != nil {
		t.Fatal(err)
	}
	rerun, err := scenario.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rerun.Generated() || len(rerun.Cases()) != 2 || strings.Contains(string(rerun.YAML()), "NodeCount") {
		t.Fatalf("recorded scenario still generates or lost cases:\n%s", rerun.YAML())
	}
	want, _ := s.CaseTopology(s.Cases()[0])
	got, err := rerun.CaseTopology(rerun.Cases()[0])
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() || len(got.Pairs) != len(want.Pairs) || got.Channels[3] != want.Channels[3] {
		t.Errorf("rerun topology %s, want %s", got, want)
	}

	// Cases on different graphs keep the generator; each graph is recorded.
	s = s.Override([]scenario.Param{{Name: "Seed", Values: []string{"5", "6"}}})
	dir = t.TempDir()
	if err := writeScenario(dir, s); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"topology-1.yml", "topology-2.yml"} {
		if _, err := topology.Load(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "scenario.yml")); !strings.Contains(string(data), "topology: scalefree") {
		t.Errorf("scenario.yml of two graphs:\n%s", data)
	}
}
