package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
		{"name: X\ntopology: AlicePaysBob\nbogus: 1\n", `line 3: unknown key "bogus"; valid keys here: baseline, compare, faults, fresh_network, job, method, name, node, nodes, params, reuse_network, sampling, sweep, topology`},
		{"name: X\ntopology: AlicePaysBob\njob:\n  Iterations: 3\n", `line 4: unknown key "Iterations"; valid keys here: Duration, InvocationCount, IterationCount, LaunchCount, WarmupCount`},
		{"name: X\ntopology: AlicePaysBob\nnode:\n  mem: 1g\n", `unknown key "mem"; valid keys here: cpus, db_backend, flags, implementation, memory, profile, version`},
		{"name: X\ntopology: AlicePaysBob\nsweep:\n  params: Rate\n", `unknown key "params"; valid keys here: max_error_rate, max_p99_ms, param`},
		{"", `the file is empty; write at least "topology: AlicePaysBob"`},
		{"# to do\n", `the file is empty; write at least "topology: AlicePaysBob"`},
		{"name: X\ntopology: AlicePaysBob\njob:\n  Duration: 5s\n", "job.Duration 5s (soak --duration): use at least 10s"},
		{"name: X\ntopology: AlicePaysBob\njob:\n  Duration: -1m\n", "job.Duration -1m0s"},
		{"name: X\ntopology: AlicePaysBob\njob:\n  Duration: 1m\n  LaunchCount: 2\n", "job.LaunchCount=2 with job.Duration"},
		{"name: X\ntopology: AlicePaysBob\nnode:\n  memory: 5m\n", `node.memory "5m" is below Docker's minimum of 6 MiB`},
		{"name: X\ntopology: AlicePaysBob\nnode:\n  memory: 512q\n", `node.memory "512q": use bytes`},
		{"name: X\ntopology: AlicePaysBob\nnode:\n  cpus: -1\n", "node.cpus -1: use a positive number"},
		{"name: X\ntopology: AlicePaysBob\nnode:\n  cpus: 0.001\n", "node.cpus 0.001 is below Docker's minimum"},
		{"name: X\ntopology: AlicePaysBob\nsampling:\n  mode: often\n", `sampling.mode "often": use off, periodic or iteration`},
		{"name: X\ntopology: AlicePaysBob\nparams:\n  Mode: [fast]\n", "use one of invoice, pregenerated, keysend"},
		{"name: X\ntopology: diamond.txt\n", `topology "diamond.txt"`},
		{"name: X\ntopology: AlicePaysBob\nparams:\n  CarolsCount: [2]\n", "param CarolsCount: topology AlicePaysBob does not use it; it shapes topology AlicePaysBobViaCarol"},
		{"name: X\ntopology: AlicePaysBobViaCarol\nparams:\n  AliceCount: [2]\n", "it shapes topology AlicesPayBob"},
		{"name: X\ntopology: t.yml\nparams:\n  AliceCount: [2]\n", "topology t.yml does not use it"},
		{"name: X\ntopology: AlicePaysBob\nsweep:\n  param: TotalPayments\n  max_p99_ms: 100\n", `sweep.param "TotalPayments"`},
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
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error is not one line: %q", tt.doc, err)
		}
	}
}

// Limits Docker accepts pass, whatever their case: the compose generator
// applies the same rule (package usage/limits).
func TestParseAcceptsDockerMemoryNotation(t *testing.T) {
	for _, m := range []string{"512m", "512M", "2g", "1.5GiB", "6m"} {
		if _, err := Parse([]byte("name: X\ntopology: AlicePaysBob\nnode:\n  memory: " + m + "\n  cpus: 1.5\n")); err != nil {
			t.Errorf("memory %s: %v", m, err)
		}
	}
}

func TestJobDuration(t *testing.T) {
	s, err := Parse([]byte("name: X\ntopology: AlicePaysBob\njob:\n  IterationCount: 0\n  Duration: 10m\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Job.Timed() || s.Job.Duration != 10*time.Minute || s.Job.WarmupCount != DefaultJob.WarmupCount {
		t.Fatalf("job %+v", s.Job)
	}
	if got := s.Job.Describe(); got != "1 warm-up iteration(s), then measured iterations for 10m0s" {
		t.Errorf("describe %q", got)
	}
	back, err := Parse(s.YAML())
	if err != nil || back.Job != s.Job {
		t.Fatalf("round trip: %+v, %v\n%s", back.Job, err, s.YAML())
	}
	if got := DefaultJob.Describe(); got != "1 warm-up + 10 measured iteration(s)" {
		t.Errorf("describe %q", got)
	}
	if strings.Contains(string(Default().YAML()), "Duration") {
		t.Errorf("an untimed job writes no Duration")
	}
}

func TestCheckHost(t *testing.T) {
	tests := []struct {
		cpus  float64
		cores int
		want  string
	}{{0, 2, ""}, {2, 2, ""}, {3, 2, "node.cpus 3: this machine has 2 cores; use at most 2"}}
	for _, tt := range tests {
		s := Default()
		s.Node.CPUs = tt.cpus
		err := s.CheckHost(tt.cores)
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("cpus %g on %d cores: err %v, want %q", tt.cpus, tt.cores, err, tt.want)
		}
	}
}

func TestCheckTopologies(t *testing.T) {
	dir := t.TempDir()
	topo := filepath.Join(dir, "two.yml")
	os.WriteFile(topo, []byte("nodes: [{name: a}, {name: b}]\nchannels: [{from: a, to: b}]\npayers: [a]\npayee: b\n"), 0o644)
	tests := []struct {
		topology string
		params   []Param
		want     string // "" means fine
	}{
		{"AlicePaysBob", nil, ""},
		{"AlicePaysBobViaCarol", []Param{{"CarolsCount", []string{"0", "2"}}}, ""},
		{"AlicePaysBobViaCarol", []Param{{"CarolsCount", []string{"2", "60"}}}, "CarolsCount=60: use 0..50"},
		{"AlicesPayBob", []Param{{"AliceCount", []string{"51"}}}, "AliceCount=51: use 1..50"},
		{topo, nil, ""},
		{filepath.Join(dir, "missing.yml"), nil, "topology file"},
	}
	for _, tt := range tests {
		s := Default()
		s.Topology, s.Params = tt.topology, tt.params
		err := s.CheckTopologies()
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s %v: err %v, want %q", tt.topology, tt.params, err, tt.want)
		}
	}
	s := Default()
	s.Topology = "AlicePaysBobViaCarol"
	s.Node.Version = "v9"
	got, err := s.CaseTopology(NewCase([]Value{{"CarolsCount", "2"}}))
	if err != nil || len(got.Nodes) != 4 || got.Nodes[0].Implementation != "lnd" || got.Nodes[0].Version != "v9" {
		t.Fatalf("case topology %+v, %v", got, err)
	}
}

func TestLoadRefusesWithAFix(t *testing.T) {
	dir := t.TempDir()
	write := func(name, doc string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(doc), 0o644)
		return p
	}
	tests := []struct{ path, want string }{
		{write("topo.yml", "nodes: [{name: a}, {name: b}]\nchannels: [{from: a, to: b}]\npayers: [a]\npayee: b\n"),
			"is a topology file, not a scenario: name it in a scenario file (topology: topo.yml), or bring it up with lnbench up"},
		{write("empty.yml", ""), `empty.yml: the file is empty; write at least "topology: AlicePaysBob"`},
		{filepath.Join(dir, "absent.yml"), "scenario file:"},
	}
	for _, tt := range tests {
		_, err := Load(tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want containing %q", tt.path, err, tt.want)
		}
	}
}

// A scenario's nodes: are node specs: it is not taken for a topology file.
func TestScenarioWithNodeSpecsIsAScenario(t *testing.T) {
	p := filepath.Join(t.TempDir(), "specs.yml")
	os.WriteFile(p, []byte("topology: AlicePaysBob\nnodes: [lnd@v0.21.0-beta, old=lnd@v0.20.2-beta]\nbaseline: old\n"), 0o644)
	s, err := Load(p)
	if err != nil || len(s.Specs()) != 2 {
		t.Fatalf("scenario with nodes: %v (specs %+v)", err, s.Specs())
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

func TestNameDefaultsToTheTopologysBaseName(t *testing.T) {
	for topo, want := range map[string]string{
		"AlicePaysBob":            "AlicePaysBob",
		"/tmp/x/diamond.yml":      "diamond",
		"graphs/my graph.v2.json": "my_graph_v2",
		"random":                  "random",
	} {
		if got := defaultName(topo); got != want {
			t.Errorf("defaultName(%q) = %q, want %q", topo, got, want)
		}
	}
}
