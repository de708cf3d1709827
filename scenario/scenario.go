// Package scenario reads benchmark scenario files: which topology, which
// params (lists whose Cartesian product gives the cases), and job settings
// with BenchmarkDotNet's meaning.
package scenario

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/internal/strictyaml"
	"github.com/lnbench/lnbench/nodespec"
	"github.com/lnbench/lnbench/topology"
	"github.com/lnbench/lnbench/usage/limits"
)

// Job settings, as BenchmarkDotNet names them.
type Job struct {
	LaunchCount     int `yaml:"LaunchCount" json:"LaunchCount"`
	WarmupCount     int `yaml:"WarmupCount" json:"WarmupCount"`
	IterationCount  int `yaml:"IterationCount" json:"IterationCount"`
	InvocationCount int `yaml:"InvocationCount" json:"InvocationCount"`
	// Duration, when set, bounds the measured iterations by time instead of
	// IterationCount (which is then ignored): they run back to back until it
	// has passed since measuring began (soak runs).
	Duration time.Duration `yaml:"Duration,omitempty" json:"Duration,omitempty"`
}

// MinDuration is the shortest Job.Duration: shorter soaks show no drift.
const MinDuration = 10 * time.Second

// Timed tells whether the measured iterations are bounded by Duration.
func (j Job) Timed() bool { return j.Duration > 0 }

// Describe is the job's iterations in words, for the plan line.
func (j Job) Describe() string {
	if j.Timed() {
		return fmt.Sprintf("%d warm-up iteration(s), then measured iterations for %v", j.WarmupCount, j.Duration)
	}
	return fmt.Sprintf("%d warm-up + %d measured iteration(s)", j.WarmupCount, j.IterationCount)
}

// Node selects the implementation and its settings for every node that the
// topology does not pin.
type Node struct {
	Implementation string `yaml:"implementation" json:"implementation"`
	Version        string `yaml:"version" json:"version"`
	DBBackend      string `yaml:"db_backend" json:"db_backend"`
	// Profile is the config profile of specs that name none (nodespec.Profiles).
	Profile string   `yaml:"profile" json:"profile"`
	Flags   []string `yaml:"flags" json:"flags"`
	// CPUs and Memory limit each node's container (compose backend only;
	// not btcd's or the sampler's).
	CPUs   float64 `yaml:"cpus,omitempty" json:"cpus,omitempty"`
	Memory string  `yaml:"memory,omitempty" json:"memory,omitempty"`
}

// Limits are the node's container limits, checked by Docker's rules.
func (n Node) Limits() limits.Limits { return limits.Limits{CPUs: n.CPUs, Memory: n.Memory} }

// Scenario is a benchmark definition.
type Scenario struct {
	Name     string  `json:"name"`
	Method   string  `json:"method"`
	Topology string  `json:"topology"`
	Params   []Param `json:"params"`
	Job      Job     `json:"job"`
	Node     Node    `json:"node"`
	// Nodes are the node specs the cases compare (cases = specs × params);
	// empty means one spec from Node. See Specs.
	Nodes []nodespec.Spec `json:"nodes,omitempty"`
	// Baseline is the label of the spec the others are compared with ("" = none).
	Baseline string `json:"baseline,omitempty"`
	// BuildKeys maps each spec label to its build key once the builds are
	// ensured; topology nodes carry them to the backends.
	BuildKeys map[string]string `json:"build_keys,omitempty"`
	// ReuseNetwork runs every case that needs the same topology on one
	// network instead of a fresh one per case (BenchmarkDotNet's GlobalSetup).
	ReuseNetwork bool `json:"reuse_network"`
	// FreshNetwork builds every network from nothing, never restoring one
	// from a snapshot (restoring is the default where the backend can).
	FreshNetwork bool     `json:"fresh_network,omitempty"`
	Source       string   `json:"source,omitempty"`
	Sweep        *Sweep   `json:"sweep,omitempty"`
	Sampling     Sampling `json:"sampling"`
	// Faults are injected during each case's measured iterations (package faults).
	Faults []faults.Spec `json:"faults,omitempty"`
	// Compare orders the launches of a comparison and sizes its verdicts.
	Compare Compare `json:"compare,omitzero"`
	// LaunchCountSet tells whether the file or a flag set job.LaunchCount
	// (else a comparison gets DefaultCompareLaunches).
	LaunchCountSet bool `json:"-"`
}

// Sweep raises one param step by step (its values in file order) and stops
// at the first step whose latency or error rate breaks a bound; the report
// names the knee: the highest throughput within the bounds.
type Sweep struct {
	Param        string  `yaml:"param" json:"param"`
	MaxP99Ms     float64 `yaml:"max_p99_ms" json:"max_p99_ms"`
	MaxErrorRate float64 `yaml:"max_error_rate" json:"max_error_rate"`
}

// file is the YAML shape; params is a mapping kept in file order.
type file struct {
	Name         string    `yaml:"name"`
	Method       string    `yaml:"method"`
	Topology     string    `yaml:"topology"`
	Params       yaml.Node `yaml:"params"`
	Job          Job       `yaml:"job"`
	Node         Node      `yaml:"node"`
	Nodes        yaml.Node `yaml:"nodes"`
	Baseline     string    `yaml:"baseline"`
	ReuseNetwork bool      `yaml:"reuse_network"`
	FreshNetwork bool      `yaml:"fresh_network"`
	Sweep        *Sweep    `yaml:"sweep"`
	Sampling     Sampling  `yaml:"sampling"`
	Faults       yaml.Node `yaml:"faults"`
	Compare      Compare   `yaml:"compare"`
}

// DefaultJob finishes the default run in a few minutes on 2 cores.
var DefaultJob = Job{LaunchCount: 1, WarmupCount: 1, IterationCount: 10, InvocationCount: 1}

// DefaultNode is LND at the pinned default version.
// on bbolt, each spec with its implementation's default profile (LND's own
// settings).
var DefaultNode = Node{Implementation: "lnd", Version: "v0.21.0-beta", DBBackend: "bbolt"}

// Default is the seed's RunAlicePaysBob.
func Default() Scenario {
	return Scenario{
		Name: "AlicePaysBob", Method: "RunAlicePaysBob", Topology: "AlicePaysBob",
		Params: []Param{{Name: "Concurrency", Values: []string{"20", "40", "60", "80"}}, {Name: "TotalPayments", Values: []string{"100"}}},
		Job:    DefaultJob, Node: DefaultNode, Sampling: DefaultSampling,
	}
}

// FileName is the scenario an artifacts folder records (record.ScenarioFile).
const FileName = "scenario.yml"

// Load reads and validates a scenario file.
func Load(path string) (Scenario, error) {
	// A folder is an artifacts folder: rerun the scenario it recorded.
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, FileName)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Scenario{}, fmt.Errorf("scenario file: %v", err)
	}
	dir := filepath.Dir(path)
	s, err := parseIn(data, dir)
	if err != nil && !errors.Is(err, strictyaml.ErrEmpty) && isTopologyFile(data) {
		return Scenario{}, fmt.Errorf("%s is a topology file, not a scenario: name it in a scenario file (topology: %s), or bring it up with lnbench up %s",
			path, filepath.Base(path), path)
	}
	if err != nil {
		return Scenario{}, fmt.Errorf("scenario %s: %w", path, err)
	}
	s.Source = path
	if err := s.resolvePaths(dir); err != nil {
		return Scenario{}, fmt.Errorf("scenario %s: %w", path, err)
	}
	return s, nil
}

// isTopologyFile tells whether a document has a topology file's keys.
func isTopologyFile(data []byte) bool {
	keys := strictyaml.TopLevelKeys(data)
	if slices.Contains(keys, "topology") {
		return false // a scenario (its nodes: are node specs)
	}
	return slices.ContainsFunc(keys, func(k string) bool {
		return k == "nodes" || k == "channels" || k == "payers" || k == "payee"
	})
}

// Parse decodes a scenario strictly: unknown keys are errors. Node specs'
// relative paths are from the current directory (Load reads them from the
// file's folder).
func Parse(data []byte) (Scenario, error) { return parseIn(data, "") }

func parseIn(data []byte, dir string) (Scenario, error) {
	// Decoding into the defaults keeps every setting the file leaves out.
	f := file{Job: DefaultJob, Node: DefaultNode, Sampling: DefaultSampling}
	f.Job.LaunchCount = unsetLaunches // to tell a file's LaunchCount from the default
	if err := strictyaml.Decode(data, &f); errors.Is(err, strictyaml.ErrEmpty) {
		return Scenario{}, fmt.Errorf("%w; write at least \"topology: AlicePaysBob\" (bench/scenario.yml shows every setting)", err)
	} else if err != nil {
		return Scenario{}, err
	}
	s := Scenario{Name: f.Name, Method: f.Method, Topology: f.Topology, Job: f.Job, Node: f.Node, ReuseNetwork: f.ReuseNetwork, FreshNetwork: f.FreshNetwork, Sweep: f.Sweep, Sampling: f.Sampling, Compare: f.Compare}
	s.LaunchCountSet = s.Job.LaunchCount != unsetLaunches
	if !s.LaunchCountSet {
		s.Job.LaunchCount = DefaultJob.LaunchCount
	}
	nodes, baseline, err := parseNodes(f.Nodes, dir)
	if err != nil {
		return Scenario{}, err
	}
	s.Nodes, s.Baseline = nodes, f.Baseline
	if s.Faults, err = parseFaults(f.Faults); err != nil {
		return Scenario{}, err
	}
	if baseline != "" {
		if f.Baseline != "" && f.Baseline != baseline {
			return Scenario{}, fmt.Errorf("baseline %q: nodes marks %s as the baseline; keep one", f.Baseline, baseline)
		}
		s.Baseline = baseline
	}
	// "params:" with nothing under it (as YAML writes a case-less scenario) is no params.
	if f.Params.Kind != 0 && f.Params.Tag != "!!null" {
		if f.Params.Kind != yaml.MappingNode {
			return Scenario{}, fmt.Errorf("params: write a mapping of name to a list of values, e.g. Concurrency: [20, 40]")
		}
		for i := 0; i+1 < len(f.Params.Content); i += 2 {
			k, v := f.Params.Content[i], f.Params.Content[i+1]
			p := Param{Name: k.Value}
			switch v.Kind {
			case yaml.SequenceNode:
				for _, item := range v.Content {
					p.Values = append(p.Values, item.Value)
				}
			case yaml.ScalarNode:
				p.Values = []string{v.Value}
			default:
				return Scenario{}, fmt.Errorf("params.%s: give a value or a list of values", k.Value)
			}
			s.Params = append(s.Params, p)
		}
	}
	if s.Name == "" && s.Topology != "" {
		s.Name = defaultName(s.Topology)
	}
	if s.Method == "" {
		s.Method = "Run" + s.Name
	}
	// The payers' modes wait for the command line: --node may replace
	// the nodes the file names (Validate checks them after).
	return s, s.validateSettings()
}

// defaultName names a scenario after its topology: a built-in or generator
// name as it is, a file by its base name without extension (a valid name
// made of the characters names allow).
func defaultName(topo string) string {
	base := strings.TrimSuffix(filepath.Base(topo), filepath.Ext(topo))
	name := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, base)
	if name == "" {
		return "scenario"
	}
	return name
}

// Validate reports the first problem, naming the field and the fix.
func (s Scenario) Validate() error {
	if err := s.validateSettings(); err != nil {
		return err
	}
	return s.checkPayerModes()
}

// validateSettings is Validate but for what depends on the nodes as a
// run resolves them (a CLN-only mode on CLN payers).
func (s Scenario) validateSettings() error {
	if s.Name == "" {
		return fmt.Errorf("name: give the scenario a name (e.g. name: AlicePaysBob)")
	}
	if strings.ContainsAny(s.Name, "/ \t") {
		return fmt.Errorf("name %q: use letters, digits, '-' or '_' only", s.Name)
	}
	if s.Topology == "" {
		return fmt.Errorf("topology: name %s, a generator (%s) or a topology .yml file", topology.BuiltinNames(), strings.Join(topology.Shapes, ", "))
	}
	if err := topology.ValidateSource(s.Topology); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, p := range s.Params {
		if (p.Name == "Rate" && seen["RatePerPair"]) || (p.Name == "RatePerPair" && seen["Rate"]) {
			return fmt.Errorf("params: Rate and RatePerPair both set; give the open loop's total rate (Rate) or each pair's (RatePerPair)")
		}
		if seen[p.Name] {
			return fmt.Errorf("params: %s appears twice", p.Name)
		}
		seen[p.Name] = true
		if err := p.Validate(); err != nil {
			return err
		}
		if err := s.readsTopologyParam(p.Name); err != nil {
			return err
		}
	}
	for _, j := range []struct {
		name   string
		v, min int
	}{{"LaunchCount", s.Job.LaunchCount, 1}, {"WarmupCount", s.Job.WarmupCount, 0}, {"IterationCount", s.Job.IterationCount, 1}, {"InvocationCount", s.Job.InvocationCount, 1}} {
		if j.v < j.min && (j.name != "IterationCount" || !s.Job.Timed()) {
			return fmt.Errorf("job.%s=%d: must be at least %d", j.name, j.v, j.min)
		}
	}
	if d := s.Job.Duration; d < 0 || (d > 0 && d < MinDuration) {
		return fmt.Errorf("job.Duration %v (soak --duration): use at least %v, e.g. 10m (0 = IterationCount decides)", d, MinDuration)
	}
	if s.Job.Timed() && s.Job.LaunchCount != 1 {
		return fmt.Errorf("job.LaunchCount=%d with job.Duration: a timed job runs one launch; set LaunchCount: 1", s.Job.LaunchCount)
	}
	if err := s.validateCompare(); err != nil {
		return err
	}
	if sw := s.Sweep; sw != nil {
		found := false
		for _, p := range s.Params {
			found = found || p.Name == sw.Param
		}
		if !found || (sw.Param != "Rate" && sw.Param != "Concurrency") {
			return fmt.Errorf("sweep.param %q: name Rate or Concurrency, and list its steps under params", sw.Param)
		}
		if sw.MaxP99Ms <= 0 && sw.MaxErrorRate <= 0 {
			return fmt.Errorf("sweep: set max_p99_ms and/or max_error_rate (e.g. max_p99_ms: 2000, max_error_rate: 0.01)")
		}
		if sw.MaxErrorRate < 0 || sw.MaxErrorRate >= 1 {
			return fmt.Errorf("sweep.max_error_rate %g: use a fraction in [0, 1)", sw.MaxErrorRate)
		}
	}
	if err := s.Sampling.Validate(); err != nil {
		return err
	}
	if !supported(s.Node.Implementation) {
		return fmt.Errorf("node.implementation %q: use lnd or cln (with version: src:PATH, a Core Lightning tree)", s.Node.Implementation)
	}
	if err := s.Node.Limits().Validate(); err != nil {
		return fmt.Errorf("node.%v", err)
	}
	if !slices.Contains(nodespec.DBVariants, s.Node.DBBackend) {
		return fmt.Errorf("node.db_backend %q: use %s", s.Node.DBBackend, strings.Join(nodespec.DBVariants, ", "))
	}
	if s.Node.Profile != "" && !slices.Contains(nodespec.Profiles, s.Node.Profile) {
		return fmt.Errorf("node.profile %q: use one of %s", s.Node.Profile, strings.Join(nodespec.Profiles, ", "))
	}
	return s.validateSpecs()
}

// readsTopologyParam refuses a topology param the topology ignores: the
// cases would differ in name only.
func (s Scenario) readsTopologyParam(name string) error {
	if sp, _ := spec(name); !sp.Topology || topology.Builtin[s.Topology] == name {
		return nil
	}
	// Pairs and Seed draw random traffic on any topology.
	if name == "Pairs" || name == "Seed" {
		return nil
	}
	generated := topology.IsGenerated(s.Topology)
	for _, p := range s.Params {
		generated = generated || p.Name == "Graph"
	}
	if generated && (name == "Graph" || name == "Capacity" || slices.Contains(topology.GraphParams, name)) {
		return nil
	}
	if name == "Graph" || name == "Capacity" || slices.Contains(topology.GraphParams, name) {
		return fmt.Errorf("param %s: topology %s is not generated; set topology to one of %s (or a describegraph .json) or drop the param", name, s.Topology, strings.Join(topology.Shapes, ", "))
	}
	for topo, param := range topology.Builtin {
		if param == name {
			return fmt.Errorf("param %s: topology %s does not use it; it shapes topology %s (set topology: %s or drop the param)", name, s.Topology, topo, topo)
		}
	}
	return fmt.Errorf("param %s: topology %s does not use it; drop the param", name, s.Topology)
}

// CheckHost checks what depends on the machine the run starts on: a CPU
// limit above its cores. Not part of Validate, which must accept the
// scenario of a run made on a larger machine (lnbench report).
func (s Scenario) CheckHost(cores int) error {
	if err := s.Node.Limits().FitHost(cores); err != nil {
		return fmt.Errorf("node.%v", err)
	}
	return nil
}

// CaseTopology is the network a case runs on: built from the topology name
// or file and the case's topology params, node defaults filled, validated.
func (s Scenario) CaseTopology(c Case) (topology.Topology, error) {
	topo, err := s.CaseGraph(c)
	if err != nil {
		return topo, err
	}
	if topo, err = s.resolveNodes(topo, c.Node); err != nil {
		return topo, err
	}
	return topo, topo.Validate()
}

// CaseGraph is the case's graph as its topology source gives it (a file, a
// built-in shape or a generator), before node specs are resolved: what an
// artifacts folder records so a rerun needs no generator.
func (s Scenario) CaseGraph(c Case) (topology.Topology, error) {
	return topology.BuildWith(s.Topology, c.Ints(), c.Texts())
}

// CheckTopologies builds every case's topology, so that a bad file or an
// out-of-range topology param is refused before anything starts.
func (s Scenario) CheckTopologies() error {
	for _, c := range s.Cases() {
		if _, err := s.CaseTopology(c); err != nil {
			return err
		}
	}
	if _, err := s.AllSpecs(); err != nil {
		return err
	}
	return s.CheckFaults()
}

// Generated tells whether the scenario's networks come from a generator.
func (s Scenario) Generated() bool {
	if topology.IsGenerated(s.Topology) {
		return true
	}
	for _, p := range s.Params {
		if p.Name == "Graph" || p.Name == "Pairs" {
			return true
		}
	}
	return false
}

// WithoutGenerator names a topology file instead of the generator and
// drops the params only the generator read.
func (s Scenario) WithoutGenerator(file string) Scenario {
	out := s
	out.Topology = file
	out.Params = nil
	for _, p := range s.Params {
		if p.Name != "Graph" && p.Name != "Capacity" && !slices.Contains(topology.GraphParams, p.Name) {
			out.Params = append(out.Params, p)
		}
	}
	return out
}

// Override replaces (or adds) params from the command line.
func (s Scenario) Override(ps []Param) Scenario {
	out := s
	out.Params = append([]Param(nil), s.Params...)
	for _, p := range ps {
		replaced := false
		for i := range out.Params {
			if out.Params[i].Name == p.Name {
				out.Params[i], replaced = p, true
			}
		}
		if !replaced {
			out.Params = append(out.Params, p)
		}
	}
	return out
}

// YAML renders the scenario as a file that Load reads back (for artifacts).
func (s Scenario) YAML() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "name: %s\nmethod: %s\ntopology: %s\nparams:\n", s.Name, s.Method, s.Topology)
	for _, p := range s.Params {
		fmt.Fprintf(&b, "  %s: [%s]\n", p.Name, strings.Join(p.Values, ", "))
	}
	fmt.Fprintf(&b, "job:\n  LaunchCount: %d\n  WarmupCount: %d\n  IterationCount: %d\n  InvocationCount: %d\n",
		s.Job.LaunchCount, s.Job.WarmupCount, s.Job.IterationCount, s.Job.InvocationCount)
	if s.Job.Timed() {
		fmt.Fprintf(&b, "  Duration: %v\n", s.Job.Duration)
	}
	fmt.Fprintf(&b, "node:\n  implementation: %s\n  version: %s\n  db_backend: %s\n", s.Node.Implementation, s.Node.Version, s.Node.DBBackend)
	if s.Node.Profile != "" {
		fmt.Fprintf(&b, "  profile: %s\n", s.Node.Profile)
	}
	if s.Node.CPUs > 0 {
		fmt.Fprintf(&b, "  cpus: %g\n", s.Node.CPUs)
	}
	if s.Node.Memory != "" {
		fmt.Fprintf(&b, "  memory: %s\n", s.Node.Memory)
	}
	if len(s.Node.Flags) > 0 {
		fmt.Fprintf(&b, "  flags: [%s]\n", strings.Join(quoteAll(s.Node.Flags), ", "))
	}
	if len(s.Nodes) > 0 {
		b.WriteString("nodes:\n")
		for _, sp := range s.Nodes {
			fmt.Fprintf(&b, "  - name: %s\n    spec: %q\n", sp.Label, sp.Text())
		}
	}
	if s.Baseline != "" {
		fmt.Fprintf(&b, "baseline: %s\n", s.Baseline)
	}
	fmt.Fprintf(&b, "reuse_network: %v\n", s.ReuseNetwork)
	if s.FreshNetwork {
		b.WriteString("fresh_network: true\n")
	}
	if sm := s.Sampling; sm.On() {
		fmt.Fprintf(&b, "sampling:\n  mode: %s\n  every: %s\n  window: %s\n  stagger: %v\n  slice: %s\n", sm.Mode, sm.Every, sm.Window, sm.Stagger, sm.Slice)
	}
	if sw := s.Sweep; sw != nil {
		fmt.Fprintf(&b, "sweep:\n  param: %s\n  max_p99_ms: %g\n  max_error_rate: %g\n", sw.Param, sw.MaxP99Ms, sw.MaxErrorRate)
	}
	b.WriteString(s.Compare.yaml())
	if len(s.Faults) > 0 {
		b.WriteString("faults:\n")
		for _, f := range s.Faults {
			fmt.Fprintf(&b, "  - %q\n", f.String())
		}
	}
	return []byte(b.String())
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}
