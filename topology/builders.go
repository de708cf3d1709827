package topology

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/lnbench/lnbench/internal/strictyaml"
)

// AlicePaysBob is alice with one channel to bob.
func AlicePaysBob() Topology {
	return Topology{
		Name:     "AlicePaysBob",
		Nodes:    []Node{{Name: "alice"}, {Name: "bob"}},
		Channels: []Channel{{From: "alice", To: "bob"}},
		Payers:   []string{"alice"},
		Payee:    "bob",
	}
}

// AlicePaysBobViaCarol is alice → carol1 → … → carolN → bob.
func AlicePaysBobViaCarol(carols int) Topology {
	t := Topology{Name: "AlicePaysBobViaCarol", Payers: []string{"alice"}, Payee: "bob"}
	chain := []string{"alice"}
	for i := 1; i <= carols; i++ {
		chain = append(chain, fmt.Sprintf("carol%d", i))
	}
	chain = append(chain, "bob")
	for _, n := range chain {
		t.Nodes = append(t.Nodes, Node{Name: n})
	}
	for i := 0; i+1 < len(chain); i++ {
		t.Channels = append(t.Channels, Channel{From: chain[i], To: chain[i+1]})
	}
	return t
}

// AlicesPayBob is N alices, each with a channel to one bob.
func AlicesPayBob(alices int) Topology {
	t := Topology{Name: "AlicesPayBob", Payee: "bob"}
	for i := 1; i <= alices; i++ {
		name := fmt.Sprintf("alice%d", i)
		t.Nodes = append(t.Nodes, Node{Name: name})
		t.Channels = append(t.Channels, Channel{From: name, To: "bob"})
		t.Payers = append(t.Payers, name)
	}
	t.Nodes = append(t.Nodes, Node{Name: "bob"})
	return t
}

// Builtin names the generated topologies and the param each one reads.
var Builtin = map[string]string{
	"AlicePaysBob":         "",
	"AlicePaysBobViaCarol": "CarolsCount",
	"AlicesPayBob":         "AliceCount",
}

// BuiltinNames lists the built-in topologies, sorted, for messages.
func BuiltinNames() string {
	names := make([]string, 0, len(Builtin))
	for n := range Builtin {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// ValidateSource checks that a topology names a built-in shape or a file.
func ValidateSource(name string) error {
	if _, ok := Builtin[name]; ok || IsFile(name) || IsGenerated(name) {
		return nil
	}
	return fmt.Errorf("topology %q: use %s, a generator (%s), a topology .yml file or an lncli describegraph .json file", name, BuiltinNames(), strings.Join(Shapes, ", "))
}

// Build makes the named built-in topology for the given params, or loads a
// topology file when name is a path to a .yml/.yaml file.
func Build(name string, params map[string]int) (Topology, error) {
	return BuildWith(name, params, nil)
}

// BuildWith is Build with the text params too: Graph (a generator or a
// describegraph file, in place of name) and Capacity (a distribution).
// Pairs on a topology that is not generated replaces its payers and payee
// with random pairs drawn from Seed.
func BuildWith(name string, params map[string]int, text map[string]string) (Topology, error) {
	if g, ok := text["Graph"]; ok {
		name = g
	}
	if IsGenerated(name) {
		spec := DefaultGraphSpec(name)
		for param, field := range map[string]*int{"NodeCount": &spec.NodeCount, "Degree": &spec.Degree, "Pairs": &spec.Pairs, "PushPercent": &spec.PushPercent} {
			if v, ok := params[param]; ok {
				*field = v
			}
		}
		if v, ok := params["Seed"]; ok {
			spec.Seed = uint64(v)
		}
		if c, ok := text["Capacity"]; ok {
			d, err := ParseDistribution(c)
			if err != nil {
				return Topology{}, err
			}
			spec.Capacity = d
		}
		return Generate(spec)
	}
	t, err := buildNamed(name, params)
	if err != nil {
		return t, err
	}
	if pairs, ok := params["Pairs"]; ok {
		seed := uint64(params["Seed"])
		if t, err = t.WithRandomPairs(pairs, seed); err != nil {
			return t, err
		}
		return t, t.Validate()
	}
	return t, nil
}

func buildNamed(name string, params map[string]int) (Topology, error) {
	switch name {
	case "AlicePaysBob":
		return AlicePaysBob(), nil
	case "AlicePaysBobViaCarol":
		n, ok := params["CarolsCount"]
		if !ok {
			n = 1
		}
		if n < 0 || n > 50 {
			return Topology{}, fmt.Errorf("param CarolsCount=%d: use 0..50", n)
		}
		return AlicePaysBobViaCarol(n), nil
	case "AlicesPayBob":
		n, ok := params["AliceCount"]
		if !ok {
			n = 1
		}
		if n < 1 || n > 50 {
			return Topology{}, fmt.Errorf("param AliceCount=%d: use 1..50", n)
		}
		return AlicesPayBob(n), nil
	}
	if err := ValidateSource(name); err != nil {
		return Topology{}, err
	}
	return Load(name)
}

// Load reads and validates a topology file.
func Load(path string) (Topology, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Topology{}, fmt.Errorf("topology file: %v", err)
	}
	return Parse(data, path)
}

// Parse decodes a topology YAML document strictly (unknown fields are errors).
func Parse(data []byte, source string) (Topology, error) {
	var t Topology
	if err := strictyaml.Decode(data, &t); errors.Is(err, strictyaml.ErrEmpty) {
		return Topology{}, fmt.Errorf("topology file %s is empty; list nodes, channels, payers and payee (see \"Topology files\" in docs/scenarios.md)", source)
	} else if err != nil {
		return Topology{}, fmt.Errorf("topology file %s: %v", source, err)
	}
	if t.Name == "" {
		t.Name = "custom"
	}
	if tr := t.Traffic; tr != nil {
		if tr.Pairs != "random" || tr.Count < 1 {
			return Topology{}, fmt.Errorf("topology file %s: traffic: write {pairs: random, count: N, seed: S} with N ≥ 1", source)
		}
		if len(t.Pairs) > 0 || len(t.Payers) > 0 || t.Payee != "" {
			return Topology{}, fmt.Errorf("topology file %s: traffic and pairs/payers/payee are both set; keep one", source)
		}
		drawn, err := t.WithRandomPairs(tr.Count, tr.Seed)
		if err != nil {
			return Topology{}, fmt.Errorf("%s: %w", source, err)
		}
		t, t.Traffic = drawn, nil
	}
	if err := t.Validate(); err != nil {
		return Topology{}, fmt.Errorf("%s: %w", source, err)
	}
	return t, nil
}
