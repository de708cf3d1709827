package scenario

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lnbench/lnbench/nodespec"
	"github.com/lnbench/lnbench/topology"
)

// NodeParam is the name of the case value that carries the node spec's
// label when a scenario compares several specs.
const NodeParam = "Node"

// nodeEntry is one item of the file's nodes: list in mapping form.
type nodeEntry struct {
	Name      string `yaml:"name"`
	Spec      string `yaml:"spec"`
	Build     string `yaml:"build"`
	Profile   string `yaml:"profile"`
	DB        string `yaml:"db"`
	Footprint string `yaml:"footprint"`
	Baseline  bool   `yaml:"baseline"`
}

// parseNodes reads the nodes: list: each item a spec string or a mapping
// {name, spec (or build), profile, db, baseline}; relative paths in specs
// are from dir.
func parseNodes(list yaml.Node, dir string) ([]nodespec.Spec, string, error) {
	if list.Kind == 0 || list.Tag == "!!null" {
		return nil, "", nil
	}
	if list.Kind != yaml.SequenceNode {
		return nil, "", fmt.Errorf("nodes: write a list of node specs, e.g. nodes: [lnd@v0.21.0-beta, lnd@v0.20.2-beta]")
	}
	var out []nodespec.Spec
	baseline := ""
	for i, item := range list.Content {
		var text string
		var e nodeEntry
		switch item.Kind {
		case yaml.ScalarNode:
			e.Name, text = splitLabel(item.Value)
		case yaml.MappingNode:
			if err := item.Decode(&e); err != nil {
				return nil, "", fmt.Errorf("nodes[%d]: %v", i, err)
			}
			for j := 0; j+1 < len(item.Content); j += 2 {
				if k := item.Content[j].Value; !slices.Contains([]string{"name", "spec", "build", "profile", "db", "footprint", "baseline"}, k) {
					return nil, "", fmt.Errorf("nodes[%d].%s: unknown key; use name, spec, profile, db, footprint, baseline", i, k)
				}
			}
			text = e.Spec
			if text == "" {
				text = e.Build
			}
		default:
			return nil, "", fmt.Errorf("nodes[%d]: give a spec string (lnd@v0.21.0-beta) or a mapping {name, spec, profile, db, baseline}", i)
		}
		if text == "" {
			return nil, "", fmt.Errorf("nodes[%d].spec: name the build, e.g. spec: lnd@v0.21.0-beta", i)
		}
		sp, err := specIn("spec", text, dir)
		if err != nil {
			return nil, "", fmt.Errorf("nodes[%d]: %v", i, err)
		}
		if e.Profile != "" {
			sp.Profile = e.Profile
		}
		if e.DB != "" {
			sp.DB = e.DB
		}
		if e.Footprint != "" {
			sp.Footprint = e.Footprint
		}
		sp.Label = sp.DefaultLabel()
		if e.Name != "" {
			sp.Label = e.Name
		}
		if e.Baseline {
			if baseline != "" {
				return nil, "", fmt.Errorf("nodes[%d].baseline: %s is already the baseline; mark one spec", i, baseline)
			}
			baseline = sp.Label
		}
		out = append(out, sp)
	}
	return out, baseline, nil
}

// splitLabel reads "NAME=SPEC" (a label for the spec) or a bare "SPEC".
func splitLabel(v string) (name, text string) {
	if n, rest, ok := strings.Cut(v, "="); ok && !strings.Contains(n, "@") {
		return n, rest
	}
	return "", v
}

// ParseNodeFlags reads --node values (spec strings; NAME=SPEC names one).
func ParseNodeFlags(values []string) ([]nodespec.Spec, error) {
	var out []nodespec.Spec
	for _, v := range values {
		name, text := splitLabel(v)
		sp, err := nodespec.Parse(text)
		if err != nil {
			return nil, fmt.Errorf("--node: %v", err)
		}
		if name != "" {
			sp.Label = name
		}
		out = append(out, sp)
	}
	return out, nil
}

// Specs are the node specs the cases compare: the nodes: list, else one
// spec from the node: block's implementation and version.
func (s Scenario) Specs() []nodespec.Spec {
	if len(s.Nodes) > 0 {
		return s.Nodes
	}
	sp := nodespec.Spec{Build: s.Node.Implementation + "@" + s.Node.Version}
	sp.Label = sp.DefaultLabel()
	return []nodespec.Spec{sp}
}

// Design is the run's design: compare.design when set; else DefaultDesign,
// or sequential where a paired design cannot run (faults, a timed job).
func (s Scenario) Design() string {
	switch {
	case s.Compare.Design != "":
		return s.Compare.Design
	case len(s.Faults) > 0 || s.Job.Timed():
		return DesignSequential
	}
	return DefaultDesign
}

// Freezes tells whether the networks waiting while one runs an iteration
// alone are frozen: compare.freeze_idle when set, else on in the designs
// that run a network alone (interleaved, duet-solo).
func (s Scenario) Freezes() bool {
	if f := s.Compare.FreezeIdle; f != nil {
		return *f && runsAlone(s.Design())
	}
	return s.Paired() && runsAlone(s.Design())
}

// runsAlone tells whether a design measures one network of a round at a
// time while the others wait.
func runsAlone(design string) bool {
	return design == DesignInterleaved || design == DesignDuetSolo
}

// Paired tells whether a launch round's networks run together: several
// specs in the interleaved, duet or duet-solo design.
func (s Scenario) Paired() bool { return len(s.Specs()) > 1 && s.Design() != DesignSequential }

// BaselineSpec is the spec btcd and ratios come from: the baseline, else the first.
func (s Scenario) BaselineSpec() nodespec.Spec {
	specs := s.Specs()
	for _, sp := range specs {
		if sp.Label == s.Baseline {
			return sp
		}
	}
	return specs[0]
}

// validateSpecs checks labels are unique and the baseline names one.
func (s Scenario) validateSpecs() error {
	seen := map[string]bool{}
	for i, sp := range s.Specs() {
		if err := sp.Validate(); err != nil {
			return fmt.Errorf("nodes[%d]: %v", i, err)
		}
		if seen[sp.Label] {
			return fmt.Errorf("nodes[%d]: label %q names two specs; give one a name (nodes: [{name: mine, spec: …}] or --node mine=SPEC)", i, sp.Label)
		}
		seen[sp.Label] = true
		if !supported(sp.Implementation()) {
			return fmt.Errorf("nodes[%d] %s: implementation %q: use lnd@… or cln@src:…", i, sp.Label, sp.Implementation())
		}
	}
	if s.Baseline != "" && !seen[s.Baseline] {
		return fmt.Errorf("baseline %q: name one of the node specs' labels (%s)", s.Baseline, strings.Join(s.labels(), ", "))
	}
	return nil
}

func (s Scenario) labels() []string {
	var out []string
	for _, sp := range s.Specs() {
		out = append(out, sp.Label)
	}
	return out
}

// Cases are the node specs × the params' Cartesian product, spec varying
// slowest. With several specs each case's values begin with Node=label, so
// ids, CSV, benchmark names and history tell them apart; with one, ids are
// as they always were.
func (s Scenario) Cases() []Case {
	specs := s.Specs()
	base := Cases(s.Params)
	var out []Case
	for _, sp := range specs {
		for _, c := range base {
			if len(specs) > 1 {
				c = NewCase(append([]Value{{Name: NodeParam, Value: sp.Label}}, c.Values...))
			}
			c.Node = sp.Label
			out = append(out, c)
		}
	}
	return out
}

// nodeSpec resolves the spec a topology node runs: its node: field (a
// spec label of the scenario, or a spec string), its version field (a
// release of its implementation), else the case's spec.
func (s Scenario) nodeSpec(i int, n topology.Node, caseLabel string) (nodespec.Spec, error) {
	ref := n.Spec
	if n.Version != "" {
		if ref != "" {
			return nodespec.Spec{}, fmt.Errorf("topology: nodes[%d] %s: set node (a spec) or version, not both", i, n.Name)
		}
		impl := n.Implementation
		if impl == "" {
			impl = s.Node.Implementation
		}
		ref = impl + "@" + n.Version
	}
	specs := s.Specs()
	if ref == "" {
		ref = caseLabel
	}
	if ref == "" {
		ref = specs[0].Label // a case made outside Cases runs the first spec
	}
	for _, sp := range specs {
		if sp.Label == ref {
			return sp, nil
		}
	}
	if !strings.Contains(ref, "@") {
		return nodespec.Spec{}, fmt.Errorf("topology: nodes[%d] %s: node %q is neither a spec label of the scenario (%s) nor a spec such as lnd@v0.20.2-beta", i, n.Name, ref, strings.Join(s.labels(), ", "))
	}
	// A topology file's paths are from its folder, as a scenario file's are.
	dir := ""
	if topology.IsFile(s.Topology) {
		dir = filepath.Dir(s.Topology)
	}
	sp, err := specIn("node", ref, dir)
	if err != nil {
		return sp, fmt.Errorf("topology: nodes[%d] %s: %v", i, n.Name, err)
	}
	for _, other := range specs {
		if other.Text() == sp.Text() {
			return other, nil // the scenario already compares this spec
		}
		if other.Label == sp.Label {
			//lint:ignore ST1005 ends with the YAML key to edit
			return sp, fmt.Errorf("topology: nodes[%d] %s: spec %s has label %s, which the scenario gives to %s; refer to it by label or name it in nodes:", i, n.Name, ref, sp.Label, other.Text())
		}
	}
	return sp, nil
}

// AllSpecs are every spec the run needs: the compared ones, then those
// only topology nodes pin (each once), so all are built before the run.
func (s Scenario) AllSpecs() ([]nodespec.Spec, error) {
	out := append([]nodespec.Spec(nil), s.Specs()...)
	seen := map[string]bool{}
	for _, sp := range out {
		seen[sp.Label] = true
	}
	for _, c := range s.Cases() {
		topo, err := topology.Build(s.Topology, c.Ints())
		if err != nil {
			return nil, err
		}
		for i, n := range topo.Nodes {
			sp, err := s.nodeSpec(i, n, c.Node)
			if err != nil {
				return nil, err
			}
			if !seen[sp.Label] {
				seen[sp.Label] = true
				out = append(out, sp)
			}
		}
	}
	return out, nil
}

// resolveNodes sets every topology node's spec label, implementation,
// version and build key.
func (s Scenario) resolveNodes(topo topology.Topology, caseLabel string) (topology.Topology, error) {
	out := topo
	out.Nodes = append([]topology.Node(nil), topo.Nodes...)
	for i, n := range out.Nodes {
		sp, err := s.nodeSpec(i, n, caseLabel)
		if err != nil {
			return out, err
		}
		if n.Implementation != "" && n.Implementation != sp.Implementation() {
			return out, fmt.Errorf("topology: nodes[%d] %s: implementation %s but spec %s is %s", i, n.Name, n.Implementation, sp.Label, sp.Implementation())
		}
		out.Nodes[i].Spec = sp.Label
		out.Nodes[i].Implementation = sp.Implementation()
		out.Nodes[i].Version = sp.Version()
		out.Nodes[i].Build = s.BuildKeys[sp.Label]
	}
	return out, nil
}

// supported are the implementations a spec may name (each has a node
// driver and a build): LND and Core Lightning.
func supported(impl string) bool { return impl == "lnd" || impl == "cln" }

// checkPayerModes refuses a CLN-only payment mode (xpay, sendpay) in a
// case whose payers are not all Core Lightning nodes. A topology that does
// not build is left to the check that reports it.
func (s Scenario) checkPayerModes() error {
	for _, c := range s.Cases() {
		if !slices.Contains(CLNPaymentModes, c.Workload.Mode) {
			continue
		}
		topo, err := topology.Build(s.Topology, c.Ints())
		if err != nil {
			return nil
		}
		for i, n := range topo.Nodes {
			if !topo.Endpoint(n.Name) || !isPayer(topo, n.Name) {
				continue
			}
			sp, err := s.nodeSpec(i, n, c.Node)
			if err != nil {
				return nil
			}
			if sp.Implementation() != "cln" {
				return fmt.Errorf("case %s: Mode=%s is a Core Lightning payment command, and payer %s runs %s (%s); use Mode=invoice, pregenerated or keysend, or a cln@src: spec", c.ID(), c.Workload.Mode, n.Name, sp.Implementation(), sp.Label)
			}
		}
	}
	return nil
}

func isPayer(topo topology.Topology, name string) bool {
	for _, r := range topo.Routes() {
		if r.Payer == name {
			return true
		}
	}
	return false
}
