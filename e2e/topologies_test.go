//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/scenario"
)

func measured(t *testing.T, dir string) map[string][]result.Record {
	t.Helper()
	recs, err := result.ReadFile(filepath.Join(dir, "payments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]result.Record{}
	for _, r := range recs {
		if r.Phase == result.Measure {
			out[r.Case] = append(out[r.Case], r)
		}
	}
	return out
}

// TestViaCarolCrossesCarols: payments really cross the carols — every route
// has CarolsCount+1 hops and each carol forwarded every payment.
func TestViaCarolCrossesCarols(t *testing.T) {
	t.Parallel() // local processes on free ports, own work and artifacts folders
	s := scenario.Default()
	s.Name, s.Method, s.Topology = "AlicePaysBobViaCarol", "RunAlicePaysBobViaCarol", "AlicePaysBobViaCarol"
	s.Params = []scenario.Param{{Name: "Concurrency", Values: []string{"10"}}, {Name: "TotalPayments", Values: []string{"20"}}, {Name: "CarolsCount", Values: []string{"2"}}}
	s.Job = scenario.Job{LaunchCount: 1, WarmupCount: 0, IterationCount: 2, InvocationCount: 1}
	rep, dir := runLocal(t, s)
	recs := measured(t, dir)["Concurrency=10/TotalPayments=20/CarolsCount=2"]
	if len(recs) != 40 {
		t.Fatalf("%d measured payments", len(recs))
	}
	for _, r := range recs {
		if r.Status != result.Succeeded || r.Hops != 3 {
			t.Fatalf("payment did not cross 2 carols: %+v", r)
		}
	}
	// One warm-up payment per payer is forwarded too.
	got := map[string]int{}
	for _, f := range rep.Forwards {
		got[f.Node] = f.Count
	}
	for _, c := range []string{"carol1", "carol2"} {
		if got[c] != 41 {
			t.Errorf("%s forwarded %d HTLCs, want 41 (40 measured + 1 warm-up); all: %+v", c, got[c], rep.Forwards)
		}
	}
}

// TestAlicesPayBobAndModes: two alices share the load; pregenerated and
// keysend modes pay for real.
func TestAlicesPayBobAndModes(t *testing.T) {
	t.Parallel() // local processes on free ports, own work and artifacts folders
	s := scenario.Default()
	s.Name, s.Method, s.Topology = "AlicesPayBob", "RunAlicesPayBob", "AlicesPayBob"
	s.Params = []scenario.Param{{Name: "AliceCount", Values: []string{"2"}}, {Name: "Concurrency", Values: []string{"6"}},
		{Name: "TotalPayments", Values: []string{"30"}}, {Name: "Mode", Values: []string{"invoice", "pregenerated", "keysend"}}}
	s.Job = scenario.Job{LaunchCount: 1, WarmupCount: 0, IterationCount: 1, InvocationCount: 1}
	s.ReuseNetwork = true
	rep, dir := runLocal(t, s)
	if len(rep.Cases) != 3 {
		t.Fatalf("%d cases", len(rep.Cases))
	}
	for id, recs := range measured(t, dir) {
		payers := map[string]int{}
		for _, r := range recs {
			if r.Status != result.Succeeded {
				t.Fatalf("%s: %+v", id, r)
			}
			payers[r.Payer]++
		}
		if len(recs) != 30 || payers["alice1"] < 5 || payers["alice2"] < 5 {
			t.Errorf("%s: %d payments, by payer %v", id, len(recs), payers)
		}
		mode := recs[0].Mode
		if (mode == "invoice") != (recs[0].InvoiceNs > 0) {
			t.Errorf("%s: invoice time %d in mode %s", id, recs[0].InvoiceNs, mode)
		}
	}
}

// TestOpenLoopSweep: a p99 bound of 1 ms no real payment meets, so the
// first step breaks it and the sweep must stop there (deterministic,
// unlike a bound near LND's real latency).
func TestOpenLoopSweep(t *testing.T) {
	t.Parallel() // local processes on free ports, own work and artifacts folders
	s := scenario.Default()
	s.Params = []scenario.Param{{Name: "TotalPayments", Values: []string{"40"}}, {Name: "Rate", Values: []string{"5", "400", "800"}}}
	s.Job = scenario.Job{LaunchCount: 1, WarmupCount: 0, IterationCount: 1, InvocationCount: 1}
	s.ReuseNetwork = true
	s.Sweep = &scenario.Sweep{Param: "Rate", MaxP99Ms: 1}
	rep, dir := runLocal(t, s)
	recs := measured(t, dir)
	if len(recs["TotalPayments=40/Rate=5"]) != 40 {
		t.Fatalf("first step did not run: %v", len(recs["TotalPayments=40/Rate=5"]))
	}
	if len(recs["TotalPayments=40/Rate=400"])+len(recs["TotalPayments=40/Rate=800"]) != 0 {
		t.Fatalf("sweep did not stop after the bound broke; report warnings %v", rep.Warnings)
	}
	for _, r := range recs["TotalPayments=40/Rate=5"] {
		if r.Worker != -1 {
			t.Fatalf("open-loop record with a worker: %+v", r)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(md), "no Rate step stayed within the bounds") {
		t.Fatalf("summary does not report the sweep:\n%s", md)
	}
}
