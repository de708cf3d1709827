package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/internal/fakenet"
	"github.com/lnbench/lnbench/internal/runid"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/scenario"
)

func params(kv ...string) []scenario.Param {
	var ps []scenario.Param
	for i := 0; i+1 < len(kv); i += 2 {
		ps = append(ps, scenario.Param{Name: kv[i], Values: strings.Split(kv[i+1], ",")})
	}
	return ps
}

func planNames(t *testing.T, s scenario.Scenario) map[string][]string {
	t.Helper()
	plans, err := plan(s)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, p := range plans {
		for _, c := range p.cases {
			out[p.name] = append(out[p.name], c.c.ID())
		}
	}
	return out
}

func TestPlanFreshNetworkPerCaseAndLaunch(t *testing.T) {
	s := scenario.Default()
	s.Topology = "AlicePaysBobViaCarol"
	s.Params = params("CarolsCount", "1,2", "Concurrency", "5,10")
	s.Job.LaunchCount = 2
	got := planNames(t, s)
	if len(got) != 8 {
		t.Fatalf("%d networks, want 2 launches × 4 cases: %v", len(got), got)
	}
	for _, name := range []string{"launch1/CarolsCount=1/Concurrency=5", "launch2/CarolsCount=2/Concurrency=10"} {
		if len(got[name]) != 1 {
			t.Errorf("network %s runs %v, want its one case", name, got[name])
		}
	}
}

func TestPlanReuseSharesNetworksByTopologyParams(t *testing.T) {
	s := scenario.Default()
	s.Topology = "AlicePaysBobViaCarol"
	s.Params = params("CarolsCount", "1,2", "Concurrency", "5,10")
	s.Job.LaunchCount = 2
	s.ReuseNetwork = true
	got := planNames(t, s)
	want := map[string][]string{
		"launch1/CarolsCount=1": {"CarolsCount=1/Concurrency=5", "CarolsCount=1/Concurrency=10"},
		"launch1/CarolsCount=2": {"CarolsCount=2/Concurrency=5", "CarolsCount=2/Concurrency=10"},
		"launch2/CarolsCount=1": {"CarolsCount=1/Concurrency=5", "CarolsCount=1/Concurrency=10"},
		"launch2/CarolsCount=2": {"CarolsCount=2/Concurrency=5", "CarolsCount=2/Concurrency=10"},
	}
	if len(got) != len(want) {
		t.Fatalf("networks %v, want %v", got, want)
	}
	for name, cases := range want {
		if !slices.Equal(got[name], cases) {
			t.Errorf("network %s runs %v, want %v", name, got[name], cases)
		}
	}
	plans, _ := plan(s)
	if n := len(plans[0].topo.Nodes); n != 3 {
		t.Errorf("CarolsCount=1 network has %d nodes, want alice, carol1, bob", n)
	}
}

func TestNewRunNeverSharesAnIDWithinASecond(t *testing.T) {
	ids := runid.Reservations{Dir: t.TempDir(), Now: func() time.Time { return time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC) }}
	root := t.TempDir()
	a, err := NewRunIn(ids, root, "AlicePaysBob")
	if err != nil {
		t.Fatal(err)
	}
	// A second artifacts root shares the machine-wide reservations.
	b, err := NewRunIn(ids, t.TempDir(), "AlicePaysBob")
	if err != nil {
		t.Fatal(err)
	}
	if a.ID == b.ID {
		t.Fatalf("both runs got id %s", a.ID)
	}
	for _, r := range []Run{a, b} {
		if st, err := os.Stat(r.Dir); err != nil || !st.IsDir() || filepath.Base(r.Dir) != r.ID {
			t.Errorf("run %s: folder %s: %v", r.ID, r.Dir, err)
		}
	}
}

// harness runs whole scenarios in-process on fake networks.
type harness struct {
	fleet fakenet.Fleet
	ticks chan time.Time
}

func (h *harness) options(s scenario.Scenario, t *testing.T) Options {
	return Options{Scenario: s, BackendName: "fake", WorkRoot: t.TempDir(), Log: io.Discard,
		Drivers: h.fleet.Drivers("lnd"),
		StartChain: func(ctx context.Context, be backend.Backend) (network.Chain, backend.ChainEndpoint, error) {
			return fakenet.StartChain(ctx, be)
		},
		NewBackend:      func(n NetworkSpec) (backend.Backend, error) { return h.fleet.NewBackend(n.RunID), nil },
		UnknownVerdicts: report.UnknownVerdicts,
		watchTicks:      h.ticks,
	}
}

// newRun makes a run folder with private reservations; Rscript is taken
// off PATH, since render would draw plots for seconds (without it the
// report notes "no R" and writes every other report).
func newRun(t *testing.T, s scenario.Scenario) Run {
	t.Helper()
	t.Setenv("PATH", t.TempDir())
	run, err := NewRunIn(runid.Reservations{Dir: t.TempDir()}, t.TempDir(), s.Name)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func records(t *testing.T, run Run) []result.Record {
	t.Helper()
	recs, err := result.ReadFile(filepath.Join(run.Dir, "payments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func execute(t *testing.T, opts Options) (Run, []result.Record, error) {
	t.Helper()
	run := newRun(t, opts.Scenario)
	m, err := Execute(context.Background(), opts, run)
	if m.RunID != run.ID {
		t.Errorf("manifest of run %q, want %q", m.RunID, run.ID)
	}
	return run, records(t, run), err
}

// manifest reads the run.json the run left.
func manifest(t *testing.T, run Run) record.Manifest {
	t.Helper()
	m, err := record.Read(run.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// render writes the run's reports as the CLI does once Execute returns,
// for tests about what a run means (verdicts, cost curves) rather than what
// it records; only the tests import the report.
func render(t *testing.T, run Run) report.Report {
	t.Helper()
	rep, err := report.Render(run.Dir, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func smallScenario() scenario.Scenario {
	s := scenario.Default()
	s.Params = params("Concurrency", "1,3", "TotalPayments", "6")
	s.Job = scenario.Job{LaunchCount: 1, WarmupCount: 1, IterationCount: 2, InvocationCount: 1}
	s.Node.Flags = []string{"--extra"}
	return s
}

func TestExecuteRunsAScenarioOnFakeNodes(t *testing.T) {
	h := &harness{}
	s := smallScenario()
	run, recs, err := execute(t, h.options(s, t))
	if err != nil {
		t.Fatal(err)
	}
	// 2 cases × (1 warm-up + 2 measured) iterations × 6 payments.
	if len(recs) != 36 {
		t.Fatalf("%d records, want 36", len(recs))
	}
	count := map[string]int{}
	for _, r := range recs {
		if r.Status != result.Succeeded || r.Payer != "alice" || r.Payee != "bob" || r.Mode != "invoice" {
			t.Fatalf("record %+v", r)
		}
		count[fmt.Sprintf("%s %s %d", r.Case, r.Phase, r.Iteration)]++
	}
	for _, c := range []string{"Concurrency=1/TotalPayments=6", "Concurrency=3/TotalPayments=6"} {
		for _, it := range []string{"warmup 0", "measure 0", "measure 1"} {
			if count[c+" "+it] != 6 {
				t.Errorf("%s %s: %d payments, want 6", c, it, count[c+" "+it])
			}
		}
	}
	// A fresh network per case, each torn down.
	bes := h.fleet.Backends()
	if len(bes) != 2 {
		t.Fatalf("%d networks, want 2", len(bes))
	}
	for _, be := range bes {
		if be.TornDown() != 1 {
			t.Errorf("network torn down %d times", be.TornDown())
		}
	}
	for _, f := range []string{record.ManifestFile, record.ScenarioFile, record.PaymentsFile, "nodes/launch1_Concurrency-1_TotalPayments-6/alice/fake.log", "nodes/launch1_Concurrency-1_TotalPayments-6/btcd/args.txt"} {
		if _, err := os.Stat(filepath.Join(run.Dir, f)); err != nil {
			t.Errorf("artifact %s: %v", f, err)
		}
	}
	args, _ := os.ReadFile(filepath.Join(run.Dir, "nodes/launch1_Concurrency-1_TotalPayments-6/btcd/args.txt"))
	if strings.Contains(string(args), "secret") {
		t.Errorf("chain password in args.txt: %s", args)
	}
	if _, err := os.Stat(filepath.Join(run.Dir, record.SummaryFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the runner wrote %s (%v): reports are its caller's", record.SummaryFile, err)
	}
	m := manifest(t, run)
	if len(m.Nodes) != 1 || m.Finished.Before(m.Started) || len(m.Setup) == 0 {
		t.Fatalf("manifest %+v", m)
	}
	// Each of the two networks' close is timed, phase by phase.
	var phases, nets []string
	for _, ph := range m.Teardown {
		phases = append(phases, ph.Phase)
		nets = append(nets, ph.Network)
	}
	if !slices.Equal(phases, []string{"samplers", "logs", "teardown", "samplers", "logs", "teardown"}) ||
		nets[0] != nets[2] || nets[3] != nets[5] || nets[0] == nets[3] {
		t.Errorf("teardown phases %q of networks %q, want samplers, logs and teardown of each network", phases, nets)
	}
	// The manifest records the driver's flags, then the scenario's.
	if f := m.Nodes[0].Flags; !slices.Equal(f, []string{"--fake", "--db=bbolt", "--profile=default", "--extra"}) {
		t.Errorf("recorded flags %q", f)
	}
}

func TestNodeFlagsComeFromTheDriver(t *testing.T) {
	s := smallScenario()
	h := &harness{}
	configs, infos, err := NodeSetup(h.fleet.Drivers("lnd"), s, nil)
	if err != nil || len(infos) != 1 || !slices.Equal(infos[0].Flags, []string{"--fake", "--db=bbolt", "--profile=default", "--extra"}) ||
		infos[0].Profile != "default+bbolt" || !slices.Equal(configs["v0.21.0-beta"].Args, []string{"--profile=default", "--extra"}) {
		t.Fatalf("configs %+v infos %+v, %v", configs, infos, err)
	}
	if _, _, err := NodeSetup(node.Drivers{}, s, nil); err == nil || !strings.Contains(err.Error(), `node spec v0.21.0-beta: implementation "lnd" has no node driver`) {
		t.Fatalf("missing driver: %v", err)
	}
}

func TestEachSpecRunsItsOwnCasesWithItsProfile(t *testing.T) {
	h := &harness{}
	s := smallScenario()
	s.Nodes, _ = scenario.ParseNodeFlags([]string{"lnd@v0.21.0-beta", "old=lnd@v0.20.2-beta+profile=bottlepay+db=sqlite"})
	s.Baseline = "old"
	s.BuildKeys = map[string]string{"v0.21.0-beta": "k21", "old": "k20"}
	keepWaitingRunning(&s)
	opts := h.options(s, t)
	opts.Builds = map[string]NodeBuild{"old": {Manifest: nodebuild.Manifest{Key: "k20", GoVersion: "go1.x", PGOSHA256: "abc"}, Image: "img20"}}
	run, recs, err := execute(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range recs {
		count[r.Case]++
	}
	for _, id := range []string{"Node=v0.21.0-beta/Concurrency=1/TotalPayments=6", "Node=old/Concurrency=3/TotalPayments=6"} {
		if count[id] != 18 {
			t.Errorf("case %s: %d records, want 18 (%v)", id, count[id], count)
		}
	}
	summary := manifest(t, run)
	if len(summary.Nodes) != 2 {
		t.Fatalf("nodes %+v", summary.Nodes)
	}
	old := summary.Nodes[1]
	if !slices.Equal(old.Nodes, []string{"alice", "bob"}) {
		t.Errorf("spec old ran on %v", old.Nodes)
	}
	if old.Label != "old" || !old.Baseline || old.Profile != "bottlepay+sqlite" || old.Key != "k20" || old.Image != "img20" || old.PGOHash != "abc" ||
		!slices.Equal(old.Flags, []string{"--fake", "--db=sqlite", "--profile=bottlepay", "--extra"}) {
		t.Errorf("node info %+v", old)
	}
	// Every network started its nodes with their spec's build and flags.
	for _, b := range h.fleet.Backends() {
		for _, spec := range b.Started() {
			if (spec.Build != "k21" && spec.Build != "k20") || (spec.Build == "k20") != slices.Contains(spec.ExtraArgs, "--profile=bottlepay") {
				t.Errorf("node started as %+v", spec)
			}
		}
	}
}

func TestSweepStopsAtTheFirstStepBreakingTheBound(t *testing.T) {
	h := &harness{}
	// Alice's channel runs dry after 4 measured-size payments: the
	// second step fails every payment and the third never runs.
	var paid atomic.Int32
	h.fleet.Hooks.Pay = func(ctx context.Context, payer string, amt int64) (node.PaymentResult, error) {
		if amt == 150 && paid.Add(1) > 4 {
			return node.PaymentResult{FailureReason: "FAILURE_REASON_INSUFFICIENT_BALANCE"}, nil
		}
		return node.PaymentResult{Succeeded: true, Hops: 1}, nil
	}
	s := scenario.Default()
	s.Params = params("Concurrency", "1,2,4", "TotalPayments", "4", "AmountSat", "150")
	s.Job = scenario.Job{LaunchCount: 1, WarmupCount: 0, IterationCount: 1, InvocationCount: 1}
	s.Sweep = &scenario.Sweep{Param: "Concurrency", MaxErrorRate: 0.5}
	_, recs, err := execute(t, h.options(s, t))
	if err != nil {
		t.Fatal(err)
	}
	byCase := map[string][]string{}
	for _, r := range recs {
		byCase[r.Case] = append(byCase[r.Case], r.Status)
	}
	if ok := byCase["Concurrency=1/TotalPayments=4/AmountSat=150"]; len(ok) != 4 || slices.Contains(ok, result.Failed) {
		t.Errorf("first step: %v, want 4 successes", ok)
	}
	if bad := byCase["Concurrency=2/TotalPayments=4/AmountSat=150"]; len(bad) != 4 || slices.Contains(bad, result.Succeeded) {
		t.Errorf("second step: %v, want 4 failures", bad)
	}
	if skipped := byCase["Concurrency=4/TotalPayments=4/AmountSat=150"]; len(skipped) != 0 {
		t.Errorf("third step ran %d payments after the bound broke", len(skipped))
	}
	if n := len(h.fleet.Backends()); n != 2 {
		t.Errorf("%d networks started, want 2: the skipped step needs none", n)
	}
}

func TestWatchdogStopsTheRunWhenAServiceDies(t *testing.T) {
	h := &harness{ticks: make(chan time.Time)}
	paying := make(chan struct{})
	var once sync.Once
	h.fleet.Hooks.Pay = func(ctx context.Context, payer string, amt int64) (node.PaymentResult, error) {
		if amt != 150 { // warm-up
			return node.PaymentResult{Succeeded: true}, nil
		}
		once.Do(func() {
			h.fleet.Backends()[0].Kill("bob")
			close(paying)
		})
		<-ctx.Done() // a payment to a dead node never ends by itself
		return node.PaymentResult{}, ctx.Err()
	}
	s := scenario.Default()
	s.Params = params("Concurrency", "2", "TotalPayments", "10", "AmountSat", "150")
	s.Job = scenario.Job{LaunchCount: 1, WarmupCount: 0, IterationCount: 3, InvocationCount: 1}
	run := newRun(t, s)
	opts := h.options(s, t)
	done := make(chan error, 1)
	go func() {
		_, err := Execute(context.Background(), opts, run)
		done <- err
	}()
	select {
	case <-paying:
	case err := <-done:
		t.Fatalf("run ended (%v) before paying", err)
	}
	h.ticks <- time.Now()
	err := <-done
	var de *backend.DeadError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "bob died: killed by SIGKILL; last log lines:\n  fake crash") ||
		!strings.Contains(err.Error(), "measurement iteration 1: ") {
		t.Fatalf("run ended with %v, want the dead service named", err)
	}
	if n := h.fleet.Backends()[0].TornDown(); n != 1 {
		t.Errorf("network torn down %d times, want 1", n)
	}
	// Payments cut short by the watchdog are recorded as aborted, never as
	// measured outcomes.
	recs := records(t, run)
	if len(recs) == 0 {
		t.Error("the payments in flight when the watchdog stopped the run were dropped")
	}
	for _, r := range recs {
		if r.Status != result.Aborted {
			t.Errorf("record %+v after every payment hung, want aborted", r)
		}
	}
}
