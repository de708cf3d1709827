package footprint

import (
	"strings"
	"testing"
)

const gib = 1 << 30

func TestTenThousandNodesAreRefusedWithWhatFits(t *testing.T) {
	e := EstimateFor(10_000, 4, NodeBytes, 0)
	err := e.Check(22 * gib)
	if err == nil {
		t.Fatal("10,000 nodes fit in 22 GiB")
	}
	for _, want := range []string{"refusing to start 10000 nodes", "≈1221.9 GiB", "125 MiB per LND", "22.0 GiB available", "at most 170 nodes", "footprint=small", "at most 202 nodes", "measured"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in %v", want, err)
		}
	}
	// A limit does not make LND need less: it is no advice.
	if strings.Contains(err.Error(), "node.memory") {
		t.Errorf("advises a memory limit: %v", err)
	}
	if fit := e.Fits(22 * gib); EstimateFor(fit, 4, NodeBytes, 0).Check(22*gib) != nil || EstimateFor(fit+1, 4, NodeBytes, 0).Check(22*gib) == nil {
		t.Errorf("Fits says %d, which is not the largest network that passes", fit)
	}
}

func TestSmallNetworksPassAndLimitsShrinkTheEstimate(t *testing.T) {
	if err := EstimateFor(25, 4, NodeBytes, 0).Check(22 * gib); err != nil {
		t.Error(err)
	}
	if a, b := EstimateFor(100, 4, NodeBytes, 0), EstimateFor(100, 4, NodeBytes, 64<<20); b.Bytes >= a.Bytes || b.PerNode != 64<<20 {
		t.Errorf("a 64 MiB limit gave %d per node, %d total (unlimited %d)", b.PerNode, b.Bytes, a.Bytes)
	}
	// A size a user's limit gave is never called measured.
	err := EstimateFor(1000, 4, NodeBytes, 64<<20).Check(22 * gib)
	if err == nil || strings.Contains(err.Error(), "measured") || !strings.Contains(err.Error(), "64 MiB per LND, the node.memory limit you gave") {
		t.Errorf("limited estimate: %v", err)
	}
	if EstimateFor(10, 4, NodeBytes, 1<<30).Limited {
		t.Error("a 1 GiB limit, above every measured size, marked the estimate limited")
	}
}

func TestStartParallelism(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cores     int
		available int64
		nodes     int
		perNode   int64
		want      int
	}{
		{"eight per core", 2, 22 * gib, 100, SmallNodeBytes, 16},
		{"no more than the nodes", 2, 22 * gib, 2, NodeBytes, 2},
		{"half the memory at the peak", 16, 22 * gib, 100, SmallNodeBytes, 35},
		// 200 small nodes hold 20.5 GiB: 2.1 GiB is left for starts of 215 MiB over their steady size.
		{"beside the network's other nodes", 2, 23 * gib, 200, SmallNodeBytes, 9},
		{"little memory", 2, 100 << 20, 2, NodeBytes, 1},
		{"a network that does not fit", 2, 4 * gib, 100, NodeBytes, 1},
	} {
		if got := StartParallelism(tc.cores, LightStartsPerCore, tc.available, tc.nodes, tc.perNode); got != tc.want {
			t.Errorf("%s: %d cores, %d bytes, %d nodes: %d, want %d", tc.name, tc.cores, tc.available, tc.nodes, got, tc.want)
		}
	}
}

func TestCPUBoundStartsTwoPerCore(t *testing.T) {
	if got := StartParallelism(2, StartsPerCore, 22*gib, 25, NodeBytes); got != 4 {
		t.Errorf("25 full-scrypt nodes on 2 cores: %d at once, want 4", got)
	}
}

func TestParseMemAvailable(t *testing.T) {
	got, err := parseMemAvailable(strings.NewReader("MemTotal:       24684000 kB\nMemFree:        15000000 kB\nMemAvailable:   23213000 kB\n"))
	if err != nil || got != 23213000*1024 {
		t.Errorf("got %d, %v", got, err)
	}
	if _, err := parseMemAvailable(strings.NewReader("MemTotal: 1 kB\n")); err == nil {
		t.Error("meminfo without MemAvailable parsed")
	}
}
