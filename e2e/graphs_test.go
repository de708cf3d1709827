//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/topology"
)

// TestGeneratedGraph25: a random graph of 25 LND nodes with traffic between
// random pairs drawn from it. Every payment succeeds over two or more hops,
// the graph is recorded as a plain topology file that reruns without the
// generator, and nothing is left behind.
func TestGeneratedGraph25(t *testing.T) {
	t.Parallel() // local processes on free ports, own work and artifacts folders
	s := scenario.Default()
	s.Name, s.Method, s.Topology = "GeneratedGraph25", "RunGeneratedGraph25", "random"
	s.Params = []scenario.Param{
		{Name: "NodeCount", Values: []string{"25"}}, {Name: "Seed", Values: []string{"1"}}, {Name: "Degree", Values: []string{"3"}},
		{Name: "Pairs", Values: []string{"8"}}, {Name: "Concurrency", Values: []string{"4"}}, {Name: "TotalPayments", Values: []string{"16"}},
	}
	s.Job = scenario.Job{LaunchCount: 1, WarmupCount: 0, IterationCount: 1, InvocationCount: 1}
	want, err := s.CaseTopology(s.Cases()[0])
	if err != nil {
		t.Fatal(err)
	}

	work := t.TempDir()
	rep, dir := runLocalIn(t, s, work)
	for _, p := range rep.Setup {
		t.Logf("setup %s: %.1f s", p.Phase, p.Seconds)
	}

	if ps := processesMentioning(filepath.Join(work, filepath.Base(dir))); len(ps) > 0 {
		t.Fatalf("processes left running after the run:\n%v", ps)
	}
	if _, err := os.Stat(filepath.Join(work, filepath.Base(dir))); !os.IsNotExist(err) {
		t.Fatalf("work folder (holding keys) not removed: %v", err)
	}

	pairs := map[string]bool{}
	for _, p := range want.Pairs {
		pairs[p.Payer+"→"+p.Payee] = true
	}
	payees := map[string]bool{}
	var recs []result.Record
	for _, rs := range measured(t, dir) {
		recs = append(recs, rs...)
	}
	if len(recs) != 16 {
		t.Fatalf("%d measured payments, want 16", len(recs))
	}
	for _, r := range recs {
		if r.Status != result.Succeeded || r.Hops < 2 {
			t.Errorf("payment not routed over ≥2 hops: %+v", r)
		}
		if !pairs[r.Payer+"→"+r.Payee] {
			t.Errorf("payment %s→%s is not one of the drawn pairs %v", r.Payer, r.Payee, want.Pairs)
		}
		payees[r.Payee] = true
	}
	if len(payees) < 2 {
		t.Errorf("all payments went to %v: traffic was not spread over pairs", payees)
	}

	// The artifacts rerun the same graph without the generator.
	rerun, err := scenario.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rerun.Topology != filepath.Join(dir, "topology.yml") || rerun.Generated() {
		t.Fatalf("recorded scenario names topology %q (generated=%v), want the recorded topology.yml", rerun.Topology, rerun.Generated())
	}
	recorded, err := topology.Load(rerun.Topology)
	if err != nil {
		t.Fatal(err)
	}
	if len(recorded.Nodes) != 25 || len(recorded.Channels) != len(want.Channels) || len(recorded.Pairs) != 8 {
		t.Errorf("topology.yml: %s", recorded)
	}
	summary, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(summary), "## Routes (measured payments)") {
		t.Errorf("summary.md has no Routes section")
	}
}
