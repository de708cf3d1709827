//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/scenario"
)

// TestCostCurveLocal: two sizes of a generated ring on real btcd and lnd.
// Each network's cost at ready is measured from its own processes (every
// node and btcd resident, with CPU time spent), and the report has a cost
// curve with both fits, its CSVs, and nothing is left behind.
func TestCostCurveLocal(t *testing.T) {
	t.Parallel() // local processes on free ports, own work and artifacts folders
	s := scenario.Default()
	s.Name, s.Method, s.Topology = "CostCurve", "RunCostCurve", "ring"
	s.Params = []scenario.Param{
		{Name: "NodeCount", Values: []string{"4", "6"}}, {Name: "Pairs", Values: []string{"2"}},
		{Name: "Concurrency", Values: []string{"2"}}, {Name: "TotalPayments", Values: []string{"6"}},
	}
	s.Job = scenario.Job{LaunchCount: 1, WarmupCount: 0, IterationCount: 1, InvocationCount: 1}
	work := t.TempDir()
	rep, dir := runLocalIn(t, s, work)

	if len(rep.Costs) != 2 {
		t.Fatalf("network costs %+v, want one per size", rep.Costs)
	}
	for _, c := range rep.Costs {
		t.Logf("%s: %d nodes, RSS %d MiB (nodes %d MiB), peaks %d MiB, CPU %.1f s, MemAvailable %d MiB",
			c.Network, c.Nodes, c.RSSBytes>>20, c.NodeRSSBytes>>20, c.PeakRSSBytes>>20, c.CPUSeconds, c.MemAvailableBytes>>20)
		// Every lnd holds at least a few MiB and spent CPU starting; btcd too.
		if c.Source != "proc" || c.NodeRSSBytes < int64(c.Nodes)*8<<20 || c.RSSBytes <= c.NodeRSSBytes || c.PeakRSSBytes < c.RSSBytes ||
			c.CPUSeconds <= c.HarnessCPUSeconds || c.MemAvailableBytes <= 0 {
			t.Errorf("implausible cost %+v", c)
		}
	}
	if len(rep.CostCurves) != 1 {
		t.Fatalf("cost curves %+v", rep.CostCurves)
	}
	c := rep.CostCurves[0]
	if len(c.Rows) != 2 || c.Rows[1].Nodes != 6 || c.Memory.Slope <= 0 || c.MaxNodes <= 6 || c.Rows[1].PaymentsPerSec <= 0 {
		t.Errorf("cost curve %+v", c)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(md), "## Cost curve") || !strings.Contains(string(md), "Largest N this machine holds") {
		t.Errorf("summary.md lacks the cost curve")
	}
	for _, f := range []string{"costcurve.csv", "costcurve-fit.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if ps := processesMentioning(filepath.Join(work, filepath.Base(dir))); len(ps) > 0 {
		t.Fatalf("processes left running after the run:\n%v", ps)
	}
}
