package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage/footprint"
)

func TestFitDesignFallsBackWhenAPairDoesNotFit(t *testing.T) {
	s := scenario.Default()
	s.Nodes, _ = scenario.ParseNodeFlags([]string{"a=lnd@v0.21.0-beta", "b=lnd@v0.21.0-beta"})
	s.Baseline = "a"
	defer func() { MemAvailable = footprint.MemAvailable }()
	for _, tt := range []struct {
		availableMiB int64
		design       string
		fallback     bool
	}{
		{64 << 10, scenario.DesignDuet, false},
		{1100, scenario.DesignInterleaved, true}, // one network of 2 nodes fits (≈1 GiB with start peaks), two do not
		{1100, scenario.DesignSequential, false},
	} {
		MemAvailable = func() (int64, error) { return tt.availableMiB << 20, nil }
		c := s
		c.Compare.Design = tt.design
		if err := Memory(c); err != nil {
			t.Fatalf("%d MiB: one network refused: %v", tt.availableMiB, err)
		}
		note, err := FitDesign(&c)
		if err != nil {
			t.Fatal(err)
		}
		if got := note != ""; got != tt.fallback {
			t.Errorf("%d MiB, %s: fallback %q", tt.availableMiB, tt.design, note)
		}
		if tt.fallback && (c.Compare.Design != scenario.DesignSequential || !strings.Contains(note, "fell back from "+tt.design+" to sequential")) {
			t.Errorf("after fallback: design %q, note %q", c.Compare.Design, note)
		}
	}
}

// TestGuardLimitRules: a per-node limit below LND's start peak is refused
// up front with the figure, the field and the fix (a topology node's own
// too); LNBENCH_MEMORY_FLOOR moves or lifts the floor; limits that add up
// to more than the machine has are refused with what would fit.
func TestGuardLimitRules(t *testing.T) {
	defer func() { MemAvailable = footprint.MemAvailable }()
	MemAvailable = func() (int64, error) { return 8 << 30, nil }
	dir := t.TempDir()
	topoFile := filepath.Join(dir, "t.yml")
	if err := os.WriteFile(topoFile, []byte("name: t\nnodes:\n  - {name: alice, memory: 200m}\n  - {name: bob}\nchannels:\n  - {from: alice, to: bob}\npayers: [alice]\npayee: bob\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	withMemory := func(m string) scenario.Scenario {
		s := scenario.Default()
		s.Node.Memory = m
		return s
	}
	withTopo := scenario.Default()
	withTopo.Topology = topoFile
	many := scenario.Default()
	many.Topology = "Random"
	many.Params = append(many.Params, scenario.Param{Name: "Graph", Values: []string{"random"}}, scenario.Param{Name: "NodeCount", Values: []string{"10"}})
	many.Node.Memory = "1g"
	for _, tt := range []struct {
		name  string
		s     scenario.Scenario
		floor string // LNBENCH_MEMORY_FLOOR
		want  string // "" = accepted
	}{
		{"128m", withMemory("128m"), "", "node.memory (--memory) 128m: LND needs 320 MiB to start (its measured start peak, wallet scrypt included; smaller limits were OOM-killed at start), so the container would die before it answers; use 320m or more, or no limit (LNBENCH_MEMORY_FLOOR=off skips this check)"},
		{"just under", withMemory("319m"), "", "node.memory (--memory) 319m: LND needs 320 MiB"},
		{"at the floor", withMemory("320m"), "", ""},
		{"1g", withMemory("1g"), "", ""},
		{"no limit", withMemory(""), "", ""},
		{"floor off", withMemory("128m"), "off", ""},
		{"floor moved", withMemory("128m"), "100m", ""},
		{"floor moved above", withMemory("400m"), "512m", "LND needs 512 MiB to start"},
		{"bad floor", withMemory("400m"), "lots", `LNBENCH_MEMORY_FLOOR="lots": use off or a size such as 320m`},
		{"topology node's own", withTopo, "", "topology t: node alice's memory 200m: LND needs 320 MiB to start"},
		{"limits beyond the machine", many, "", "memory limits of 10 nodes add up to 10.0 GiB (node.memory/--memory and the topology's own), plus btcd and the harness ≈416 MiB, but this machine has 8.0 GiB available (MemAvailable): the limits could not all be met; lower them to at most 777m per node, or drop them"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(MemoryFloorEnv, tt.floor)
			err := Memory(tt.s)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("got %v\nwant %q", err, tt.want)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Errorf("not one line: %q", err)
			}
		})
	}
}

func TestNodeBytesIsTheLargestFootprint(t *testing.T) {
	withSpecs := func(specs ...string) scenario.Scenario {
		s := scenario.Default()
		s.Nodes, _ = scenario.ParseNodeFlags(specs)
		return s
	}
	if got := NodeBytes(withSpecs("a=lnd@v0.21.0-beta+footprint=small", "b=lnd@v0.21.0-beta")); got != footprint.NodeBytes {
		t.Errorf("small and default: %d, want %d", got, footprint.NodeBytes)
	}
	if got := NodeBytes(withSpecs("a=lnd@v0.21.0-beta+footprint=small")); got != footprint.SmallNodeBytes {
		t.Errorf("small: %d", got)
	}
	if got := NodeBytes(scenario.Default()); got != footprint.NodeBytes {
		t.Errorf("none: %d", got)
	}
}
