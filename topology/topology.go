// Package topology describes a Lightning test network as data: nodes,
// channels and who pays whom. Builders give the seed's three shapes; Load
// reads any other graph from a YAML file.
package topology

import (
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lnbench/lnbench/usage/limits"
)

// DefaultCapacitySat is the capacity of a channel whose size is not given:
// large enough for hours of 100-sat payments, below the non-wumbo limit.
const DefaultCapacitySat = 10_000_000

// Node is one Lightning node of the network.
type Node struct {
	Name           string `yaml:"name" json:"name"`
	Implementation string `yaml:"implementation,omitempty" json:"implementation"`
	Version        string `yaml:"version,omitempty" json:"version"`
	// Spec is the node spec the node runs: a label of the scenario's node
	// specs or a spec string (lnd@v0.20.2-beta); empty means the case's.
	// Resolved, it is always a label.
	Spec string `yaml:"node,omitempty" json:"node,omitempty"`
	// Build is the build key of the resolved spec (set by the harness).
	Build string `yaml:"-" json:"build,omitempty"`
	// CPUs and Memory limit this node's container (compose and swarm),
	// over the scenario's node.cpus/node.memory.
	CPUs   float64 `yaml:"cpus,omitempty" json:"cpus,omitempty"`
	Memory string  `yaml:"memory,omitempty" json:"memory,omitempty"`
	// Placement pins the node to a swarm node (swarm backend only): its
	// hostname, or a node label as key=value. Empty spreads nodes round robin.
	Placement string `yaml:"placement,omitempty" json:"placement,omitempty"`
}

// Limits are the node's own container limits (zero: the scenario's).
func (n Node) Limits() limits.Limits { return limits.Limits{CPUs: n.CPUs, Memory: n.Memory} }

// HasLimits tells whether any node sets its own container limits.
func (t Topology) HasLimits() bool {
	for _, n := range t.Nodes {
		if !n.Limits().Zero() {
			return true
		}
	}
	return false
}

// Channel is opened and funded by From towards To.
type Channel struct {
	From        string `yaml:"from" json:"from"`
	To          string `yaml:"to" json:"to"`
	CapacitySat int64  `yaml:"capacity_sat,omitempty" json:"capacity_sat"`
	PushSat     int64  `yaml:"push_sat,omitempty" json:"push_sat"`
}

// Topology is the whole network plus the direction of the measured payments.
type Topology struct {
	Name     string    `yaml:"name,omitempty" json:"name"`
	Nodes    []Node    `yaml:"nodes" json:"nodes"`
	Channels []Channel `yaml:"channels" json:"channels"`
	Payers   []string  `yaml:"payers,omitempty" json:"payers"`
	Payee    string    `yaml:"payee,omitempty" json:"payee"`
	// Pairs, when set, replace Payers and Payee: payment i goes from
	// Pairs[i%len].Payer to its Payee.
	Pairs []Pair `yaml:"pairs,omitempty" json:"pairs,omitempty"`
	// Traffic asks for random pairs drawn when the file is read.
	Traffic *Traffic `yaml:"traffic,omitempty" json:"-"`
	// Note says what an imported graph file left out ("sampled 10 of 40
	// nodes of g.json"): the plan line and the report repeat it.
	Note string `yaml:"-" json:"note,omitempty"`
}

// Pair is one payer and the node it pays.
type Pair struct {
	Payer string `yaml:"payer" json:"payer"`
	Payee string `yaml:"payee" json:"payee"`
}

// Traffic is a topology file's request for random pairs: pairs: random,
// count: N, seed: S.
type Traffic struct {
	Pairs string `yaml:"pairs"`
	Count int    `yaml:"count"`
	Seed  uint64 `yaml:"seed"`
}

// Routes are who pays whom: the pairs, or every payer with the one payee.
func (t Topology) Routes() []Pair {
	if len(t.Pairs) > 0 {
		return t.Pairs
	}
	out := make([]Pair, len(t.Payers))
	for i, p := range t.Payers {
		out[i] = Pair{Payer: p, Payee: t.Payee}
	}
	return out
}

// Endpoint tells whether a node sends or receives measured payments.
func (t Topology) Endpoint(name string) bool {
	for _, p := range t.Routes() {
		if p.Payer == name || p.Payee == name {
			return true
		}
	}
	return false
}

var nameRe = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,30}$`)

// Reserved names are the harness's own services (the chain, the profiler
// sidecar and the database server of db=postgres nodes), which share a
// namespace with nodes in every backend.
var Reserved = []string{"btcd", "sampler", "postgres"}

// ValidateName is the one rule for node names: they become container,
// host and folder names, so 1-31 lowercase letters, digits, '-' or '_',
// starting with a letter, and none of the Reserved names.
func ValidateName(name string) error {
	if !nameRe.MatchString(name) {
		return fmt.Errorf("name %q: use 1-31 lowercase letters, digits, '-' or '_', starting with a letter", name)
	}
	for _, r := range Reserved {
		if name == r {
			return fmt.Errorf("name %q is reserved for the harness (%s); choose another name", name, strings.Join(Reserved, ", "))
		}
	}
	return nil
}

// IsFile tells whether a topology names a YAML file rather than a built-in shape.
func IsFile(name string) bool {
	return strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".yaml")
}

// Validate reports the first problem as an error naming the field and the fix.
func (t Topology) Validate() error {
	if len(t.Nodes) < 2 {
		return fmt.Errorf("topology %q: nodes: need at least 2 nodes, got %d", t.Name, len(t.Nodes))
	}
	seen := map[string]bool{}
	for i, n := range t.Nodes {
		if err := ValidateName(n.Name); err != nil {
			return fmt.Errorf("topology: nodes[%d].%v", i, err)
		}
		if seen[n.Name] {
			return fmt.Errorf("topology: nodes[%d].name %q appears twice; node names must be unique", i, n.Name)
		}
		seen[n.Name] = true
		if n.Implementation != "" && n.Implementation != "lnd" && n.Implementation != "cln" {
			return fmt.Errorf("topology: nodes[%d].implementation %q is not supported; use \"lnd\" or \"cln\"", i, n.Implementation)
		}
		if err := n.Limits().Validate(); err != nil {
			return fmt.Errorf("topology: nodes[%d].%v", i, err)
		}
	}
	pairs := map[[2]string]bool{}
	for i, c := range t.Channels {
		for _, end := range []struct{ field, v string }{{"from", c.From}, {"to", c.To}} {
			if !seen[end.v] {
				return fmt.Errorf("topology: channels[%d].%s %q is not a node; declare it under nodes", i, end.field, end.v)
			}
		}
		if c.From == c.To {
			return fmt.Errorf("topology: channels[%d]: from and to are both %q; a channel needs two different nodes", i, c.From)
		}
		if c.CapacitySat < 0 || c.CapacitySat > 16_777_215 {
			return fmt.Errorf("topology: channels[%d].capacity_sat %d: use 20000..16777215 (0 means %d)", i, c.CapacitySat, DefaultCapacitySat)
		}
		if c.CapacitySat != 0 && c.CapacitySat < 20_000 {
			return fmt.Errorf("topology: channels[%d].capacity_sat %d is below LND's minimum; use at least 20000", i, c.CapacitySat)
		}
		if c.PushSat < 0 || c.PushSat >= c.Capacity() {
			return fmt.Errorf("topology: channels[%d].push_sat %d: must be >= 0 and below the capacity %d", i, c.PushSat, c.Capacity())
		}
		key := [2]string{c.From, c.To}
		if pairs[key] {
			return fmt.Errorf("topology: channels[%d]: a second channel %s→%s; one channel per direction and pair", i, c.From, c.To)
		}
		pairs[key] = true
	}
	if len(t.Pairs) > 0 {
		if len(t.Payers) > 0 || t.Payee != "" {
			return fmt.Errorf("topology: pairs and payers/payee are both set; keep pairs (random traffic) or payers with one payee")
		}
		for i, p := range t.Pairs {
			for _, end := range []struct{ field, v string }{{"payer", p.Payer}, {"payee", p.Payee}} {
				if !seen[end.v] {
					return fmt.Errorf("topology: pairs[%d].%s %q is not a node; declare it under nodes", i, end.field, end.v)
				}
			}
			if p.Payer == p.Payee {
				return fmt.Errorf("topology: pairs[%d]: %q pays itself; name two different nodes", i, p.Payer)
			}
			if !t.reaches(p.Payer, p.Payee) {
				return fmt.Errorf("topology: pairs[%d]: %q has no channel path to %q; add channels or push_sat towards %s", i, p.Payer, p.Payee, p.Payee)
			}
		}
		return nil
	}
	if len(t.Payers) == 0 {
		return fmt.Errorf("topology: payers: list at least one node that sends the measured payments (or give pairs, or traffic: {pairs: random, count: N})")
	}
	if !seen[t.Payee] {
		return fmt.Errorf("topology: payee %q is not a node; name the node that receives the payments", t.Payee)
	}
	for i, p := range t.Payers {
		if !seen[p] {
			return fmt.Errorf("topology: payers[%d] %q is not a node; declare it under nodes", i, p)
		}
		if p == t.Payee {
			return fmt.Errorf("topology: payers[%d] %q is also the payee; a node cannot pay itself", i, p)
		}
		if !t.reaches(p, t.Payee) {
			return fmt.Errorf("topology: payer %q has no channel path to payee %q; add channels from %s towards %s", p, t.Payee, p, t.Payee)
		}
	}
	return nil
}

// Capacity is the channel size with the default applied.
func (c Channel) Capacity() int64 {
	if c.CapacitySat == 0 {
		return DefaultCapacitySat
	}
	return c.CapacitySat
}

// reaches tells whether funds can flow from a to b: outbound liquidity is on
// the funder's side, plus any pushed amount on the other side.
func (t Topology) reaches(a, b string) bool { return t.reachable(a)[b] }

// reachable is every node funds can flow to from a, a included.
func (t Topology) reachable(a string) map[string]bool {
	next := map[string][]string{}
	for _, c := range t.Channels {
		next[c.From] = append(next[c.From], c.To)
		if c.PushSat > 0 {
			next[c.To] = append(next[c.To], c.From)
		}
	}
	seen := map[string]bool{a: true}
	queue := []string{a}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range next[n] {
			if !seen[m] {
				seen[m] = true
				queue = append(queue, m)
			}
		}
	}
	return seen
}

// Funders are the nodes that open channels, with the satoshis they commit.
func (t Topology) Funders() map[string]int64 {
	out := map[string]int64{}
	for _, c := range t.Channels {
		out[c.From] += c.Capacity()
	}
	return out
}

// Node returns the node with the given name.
func (t Topology) Node(name string) (Node, bool) {
	for _, n := range t.Nodes {
		if n.Name == name {
			return n, true
		}
	}
	return Node{}, false
}

// WithDefaults fills implementation and version where a node leaves them out.
func (t Topology) WithDefaults(impl, version string) Topology {
	out := t
	out.Nodes = append([]Node(nil), t.Nodes...)
	for i := range out.Nodes {
		if out.Nodes[i].Implementation == "" {
			out.Nodes[i].Implementation = impl
		}
		if out.Nodes[i].Version == "" {
			out.Nodes[i].Version = version
		}
	}
	return out
}

// String is a one-line description for logs.
func (t Topology) String() string {
	if t.Note != "" {
		u := t
		u.Note = ""
		return u.String() + " (" + t.Note + ")"
	}
	if len(t.Channels) > 12 {
		return fmt.Sprintf("%s: %d nodes, %d channels, %d payer/payee pairs", t.Name, len(t.Nodes), len(t.Channels), len(t.Routes()))
	}
	var ch []string
	for _, c := range t.Channels {
		ch = append(ch, c.From+"→"+c.To)
	}
	return fmt.Sprintf("%s: %d nodes, channels %s", t.Name, len(t.Nodes), strings.Join(ch, " "))
}

// YAML renders the topology as a file Parse reads back: a generated graph
// is recorded this way so a run repeats without its generator.
func (t Topology) YAML() ([]byte, error) {
	t.Traffic = nil
	return yaml.Marshal(t)
}
