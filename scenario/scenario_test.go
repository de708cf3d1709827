package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	s, err := Parse([]byte(`
name: AlicePaysBobViaCarol
topology: AlicePaysBobViaCarol
params:
  Concurrency: [30]
  TotalPayments: 50
  CarolsCount: [0, 1, 2, 3]
job:
  LaunchCount: 1
  WarmupCount: 0
  IterationCount: 5
  InvocationCount: 1
`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Method != "RunAlicePaysBobViaCarol" || len(s.Cases()) != 4 || s.Params[2].Name != "CarolsCount" || s.Job.IterationCount != 5 {
		t.Fatalf("parsed %+v", s)
	}
	if s.Node.Implementation != "lnd" || s.Node.Version != DefaultNode.Version || s.Node.DBBackend != "bbolt" {
		t.Fatalf("node defaults not applied: %+v", s.Node)
	}
	back, err := Parse(s.YAML())
	if err != nil {
		t.Fatalf("YAML round trip: %v\n%s", err, s.YAML())
	}
	if string(back.YAML()) != string(s.YAML()) {
		t.Fatalf("round trip changed the scenario:\n%s\n%s", s.YAML(), back.YAML())
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"name: X\ntopology: AlicePaysBob\nparams:\n  Concurrency: [0]\n", "Concurrency=\"0\": must be a positive integer"},
		{"name: X\ntopology: Nowhere\n", `topology "Nowhere"`},
		{"name: X\ntopology: AlicePaysBob\nbogus: 1\n", "field bogus not found"},
		{"name: X\ntopology: AlicePaysBob\njob:\n  IterationCount: 0\n", "job.IterationCount=0"},
		{"name: X\ntopology: AlicePaysBob\nparams: [1, 2]\n", "params: write a mapping"},
		{"name: X\ntopology: AlicePaysBob\nnode:\n  db_backend: rocks\n", "node.db_backend"},
		{"name: X\ntopology: AlicePaysBob\nparams:\n  Speed: [1]\n", `param "Speed" is unknown`},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err %v, want containing %q", tt.doc, err, tt.want)
		}
	}
}

func TestOverride(t *testing.T) {
	s := Default().Override([]Param{{"Concurrency", []string{"5"}}, {"Mode", []string{"keysend"}}})
	if got := len(s.Cases()); got != 1 {
		t.Fatalf("cases %d", got)
	}
	if v, _ := s.Cases()[0].Get("Mode"); v != "keysend" {
		t.Fatalf("Mode not added")
	}
	if len(Default().Params[0].Values) != 4 {
		t.Fatalf("Override modified the original")
	}
}

func TestLoadArtifactsFolderResolvesTopologyBeside(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "topology.yml"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "scenario.yml"), []byte("name: D\ntopology: topology.yml\n"), 0o644)
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Topology != filepath.Join(dir, "topology.yml") || s.Source != filepath.Join(dir, "scenario.yml") {
		t.Fatalf("topology %q source %q", s.Topology, s.Source)
	}
}
