package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage"
	"github.com/lnbench/lnbench/usage/costcurve"
)

func TestCostOf(t *testing.T) {
	const mib = 1 << 20
	samples := []usage.Sample{
		{Actor: "btcd", Role: usage.RoleChain, Source: usage.SourceProc, RSSBytes: 160 * mib, RSSPeakBytes: 170 * mib, CPUUserSeconds: 3, CPUSysSeconds: 1},
		{Actor: "n0", Role: usage.RoleNode, Source: usage.SourceProc, RSSBytes: 100 * mib, RSSPeakBytes: 300 * mib, CPUUserSeconds: 5},
		// A peak the source does not know (0) counts as the current RSS.
		{Actor: "n1", Role: usage.RoleNode, Source: usage.SourceProc, RSSBytes: 120 * mib, CPUSysSeconds: 2},
		{Actor: "sampler", Role: usage.RoleSampler, RSSBytes: 50 * mib, CPUUserSeconds: 9},
	}
	got := costOf(record.NetworkCost{Network: "launch1", AtReady: costcurve.AtReady{Nodes: 2}, HarnessCPUSeconds: 1.5}, samples)
	want := record.NetworkCost{Network: "launch1", HarnessCPUSeconds: 1.5, Source: usage.SourceProc,
		AtReady: costcurve.AtReady{Nodes: 2, RSSBytes: 380 * mib, NodeRSSBytes: 220 * mib, PeakRSSBytes: 590 * mib, CPUSeconds: 1.5 + 4 + 5 + 2}}
	if got.RSSBytes != want.RSSBytes || got.NodeRSSBytes != want.NodeRSSBytes || got.PeakRSSBytes != want.PeakRSSBytes ||
		got.CPUSeconds != want.CPUSeconds || got.Source != want.Source {
		t.Errorf("costOf = %+v, want %+v", got, want)
	}
}

// TestExecuteRecordsTheCostCurve: two network sizes give a cost curve
// from each network's snapshot at ready and its setup phases.
func TestExecuteRecordsTheCostCurve(t *testing.T) {
	const mib = 1 << 20
	h := &harness{}
	s := scenario.Default()
	s.Topology = "random"
	s.Params = params("NodeCount", "6,9", "TotalPayments", "4", "Pairs", "2")
	s.Job = scenario.Job{LaunchCount: 1, WarmupCount: 0, IterationCount: 1, InvocationCount: 1}
	opts := h.options(s, t)
	var calls atomic.Int32
	opts.Snapshot = func(ctx context.Context, be backend.Backend) ([]usage.Sample, error) {
		nodes := []int{6, 9}[calls.Add(1)-1]
		out := []usage.Sample{{Actor: "btcd", Role: usage.RoleChain, RSSBytes: 160 * mib, CPUUserSeconds: 1}}
		for i := range nodes {
			out = append(out, usage.Sample{Actor: fmt.Sprint("n", i), Role: usage.RoleNode, RSSBytes: 100 * mib, CPUUserSeconds: 2})
		}
		return out, nil
	}
	run := newRun(t, s)
	if _, err := Execute(context.Background(), opts, run); err != nil {
		t.Fatal(err)
	}
	rep := render(t, run)
	if len(rep.Costs) != 2 || rep.Costs[1].Nodes != 9 || rep.Costs[1].NodeRSSBytes != 900*mib || rep.Costs[1].Cases[0] != "NodeCount=9/TotalPayments=4/Pairs=2" {
		t.Fatalf("costs %+v", rep.Costs)
	}
	if len(rep.CostCurves) != 1 {
		t.Fatalf("%d cost curves, want 1", len(rep.CostCurves))
	}
	c := rep.CostCurves[0]
	if len(c.Rows) != 2 || c.Memory.Slope != 100*mib || c.MaxNodes == 0 || c.Rows[0].ReadySeconds <= 0 || c.Rows[1].PaymentsPerSec <= 0 {
		t.Fatalf("cost curve %+v", c)
	}
	md, _ := os.ReadFile(filepath.Join(run.Dir, "summary.md"))
	csv, _ := os.ReadFile(filepath.Join(run.Dir, "costcurve.csv"))
	if !strings.Contains(string(md), "## Cost curve") || !strings.HasPrefix(string(csv), "Node,Nodes,Networks,chain_s,nodes_s,") {
		t.Errorf("summary.md or costcurve.csv without the curve:\n%s\n%s", md, csv)
	}
}
