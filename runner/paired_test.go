package runner

import (
	"context"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/internal/fakenet"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage"
)

func twoSpecs(design string) scenario.Scenario {
	s := smallScenario()
	s.Nodes, _ = scenario.ParseNodeFlags([]string{"a=lnd@v0.21.0-beta", "b=lnd@v0.21.0-beta"})
	s.Baseline = "a"
	s.Job.LaunchCount = 2
	s.Job.IterationCount = 4
	s.Compare.Design = design
	keepWaitingRunning(&s)
	return s
}

// keepWaitingRunning turns the default freeze off: the harness's fake
// backends cannot pause a process (TestFreezeIdlePausesTheWaitingNetwork
// has one that can).
func keepWaitingRunning(s *scenario.Scenario) {
	off := false
	s.Compare.FreezeIdle = &off
}

func TestPairsGroupALaunchRoundsNetworks(t *testing.T) {
	for _, reuse := range []bool{false, true} {
		s := twoSpecs(scenario.DesignInterleaved)
		s.ReuseNetwork = reuse
		plans, err := plan(s)
		if err != nil {
			t.Fatal(err)
		}
		pairs := pairsOf(plans)
		want := 4 // 2 launches × 2 cases, each case on its own network
		if reuse {
			want = 2 // 2 launches, both cases on one network
		}
		if len(pairs) != want {
			t.Fatalf("reuse=%v: %d pairs, want %d", reuse, len(pairs), want)
		}
		for _, pair := range pairs {
			if len(pair) != 2 || !strings.Contains(pair[0].name, "Node=") || pair[0].name == pair[1].name ||
				strings.Split(pair[0].name, "/")[0] != strings.Split(pair[1].name, "/")[0] || len(pair[0].cases) != len(pair[1].cases) {
				t.Errorf("reuse=%v: pair %+v", reuse, pair)
			}
		}
		// The second round is B A: the pair opens in the round's order.
		if !strings.Contains(pairs[len(pairs)-1][0].name, "Node=b") {
			t.Errorf("reuse=%v: last pair starts with %s, want b (A B, B A)", reuse, pairs[len(pairs)-1][0].name)
		}
	}
}

func TestIterationRoundsAreBalanced(t *testing.T) {
	abba := iterationRounds(2, scenario.OrderABBA, 0, 4)
	if want := [][]int{{0, 1}, {1, 0}, {0, 1}, {1, 0}}; !slices.EqualFunc(abba, want, slices.Equal) {
		t.Errorf("abba rounds %v, want %v", abba, want)
	}
	shuffled := iterationRounds(2, scenario.OrderShuffled, iterationSeed(7, "launch1/", "", 0), 8)
	first := 0
	for i, r := range shuffled {
		if i%2 == 1 && !slices.Equal(r, []int{shuffled[i-1][1], shuffled[i-1][0]}) {
			t.Errorf("round %d %v does not mirror %v", i, r, shuffled[i-1])
		}
		if r[0] == 0 {
			first++
		}
	}
	if first != 4 {
		t.Errorf("network 0 first in %d of 8 rounds, want 4: %v", first, shuffled)
	}
	if iterationSeed(7, "launch1/", "", 0) == iterationSeed(7, "launch2/", "", 0) {
		t.Error("two pairs share an interleaving seed")
	}
}

// span is when one network's measured iteration ran.
type span struct {
	node     string
	from, to time.Time
}

// measuredSpans are the measured iterations' spans in time order.
func measuredSpans(recs []result.Record) []span { return phaseSpans(recs, result.Measure) }

// phaseSpans are the iterations of one phase, in start order.
func phaseSpans(recs []result.Record, phase string) []span {
	byKey := map[string]*span{}
	for _, r := range recs {
		if r.Phase != phase {
			continue
		}
		node := strings.TrimPrefix(strings.Split(r.Case, "/")[0], "Node=")
		key := node + "/" + r.Case + "/" + string(rune('0'+r.Iteration))
		sp := byKey[key]
		if sp == nil {
			sp = &span{node: node, from: r.Start, to: r.End}
			byKey[key] = sp
		}
		if r.Start.Before(sp.from) {
			sp.from = r.Start
		}
		if r.End.After(sp.to) {
			sp.to = r.End
		}
	}
	var out []span
	for _, sp := range byKey {
		out = append(out, *sp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].from.Before(out[j].from) })
	return out
}

func TestInterleavedAlternatesMeasuredIterations(t *testing.T) {
	h := &harness{}
	s := twoSpecs(scenario.DesignInterleaved)
	s.Params = params("Concurrency", "2", "TotalPayments", "6")
	run, recs, err := execute(t, h.options(s, t))
	if err != nil {
		t.Fatal(err)
	}
	spans := measuredSpans(recs)
	if len(spans) != 16 { // 2 launches × 2 specs × 4 iterations
		t.Fatalf("%d measured iterations, want 16", len(spans))
	}
	// Each launch's 8 iterations run in rounds of one per spec, A B then B A.
	for l := 0; l < 2; l++ {
		var order []string
		for _, sp := range spans[8*l : 8*l+8] {
			order = append(order, sp.node)
		}
		for r := 0; r < 4; r++ {
			round := order[2*r : 2*r+2]
			if round[0] == round[1] {
				t.Errorf("launch %d round %d: %v, want one iteration per spec (all: %v)", l+1, r, round, order)
			}
		}
	}
	for i := 1; i < len(spans); i++ {
		if spans[i].from.Before(spans[i-1].to) {
			t.Errorf("interleaved iterations overlap: %+v and %+v", spans[i-1], spans[i])
		}
	}
	// Both networks of a pair were up together: 4 networks, each torn down once.
	if n := len(h.fleet.Backends()); n != 4 {
		t.Errorf("%d networks, want 4", n)
	}
	samples, err := usage.Load(filepath.Join(run.Dir, usage.FileName))
	if err != nil {
		t.Fatal(err)
	}
	idle := 0
	for _, sm := range samples {
		if sm.Phase == usage.PhaseIdle {
			idle++
		}
	}
	if idle == 0 {
		t.Error("no idle samples: a waiting network's cost is not measured")
	}
	if d := manifest(t, run).Design; d == nil || d.Name != scenario.DesignInterleaved || !strings.Contains(d.Line(), "alternating") {
		t.Errorf("design %+v", d)
	}
}

func TestDuetMeasuresBothNetworksAtOnce(t *testing.T) {
	h := &harness{}
	// Payments that take time, so that iterations at once overlap.
	h.fleet.Hooks.Pay = func(ctx context.Context, payer string, amt int64) (node.PaymentResult, error) {
		time.Sleep(5 * time.Millisecond)
		return node.PaymentResult{Succeeded: true, Hops: 1}, nil
	}
	s := twoSpecs(scenario.DesignDuet)
	s.Params = params("Concurrency", "2", "TotalPayments", "6")
	_, recs, err := execute(t, h.options(s, t))
	if err != nil {
		t.Fatal(err)
	}
	spans := measuredSpans(recs)
	if len(spans) != 16 {
		t.Fatalf("%d measured iterations, want 16", len(spans))
	}
	// Iterations come in pairs, one per spec, that overlap in time; a
	// pair ends before the next begins.
	for i := 0; i+1 < len(spans); i += 2 {
		a, b := spans[i], spans[i+1]
		if a.node == b.node || b.from.After(a.to) {
			t.Errorf("iterations %d, %d: %+v and %+v, want one per spec at the same time", i, i+1, a, b)
		}
		if i+2 < len(spans) && spans[i+2].from.Before(maxTime(a.to, b.to)) {
			t.Errorf("iteration %d began before the pair %d, %d ended", i+2, i, i+1)
		}
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// duet-solo: per launch, 2 duet iterations with both networks at once
// (phase duet), then 2 measured iterations each alone, alternating; the
// duet half ends before the solo half begins, and the design says so.
func TestDuetSoloRunsTogetherThenAlone(t *testing.T) {
	h := &harness{}
	h.fleet.Hooks.Pay = func(ctx context.Context, payer string, amt int64) (node.PaymentResult, error) {
		time.Sleep(5 * time.Millisecond)
		return node.PaymentResult{Succeeded: true, Hops: 1}, nil
	}
	s := twoSpecs(scenario.DesignDuetSolo)
	s.Params = params("Concurrency", "2", "TotalPayments", "6")
	run, recs, err := execute(t, h.options(s, t))
	if err != nil {
		t.Fatal(err)
	}
	duets, solos := phaseSpans(recs, result.Duet), measuredSpans(recs)
	if len(duets) != 8 || len(solos) != 8 { // 2 launches × 2 specs × 2 iterations each
		t.Fatalf("%d duet and %d solo iterations, want 8 and 8", len(duets), len(solos))
	}
	for i := 0; i+1 < len(duets); i += 2 {
		if a, b := duets[i], duets[i+1]; a.node == b.node || b.from.After(a.to) {
			t.Errorf("duet iterations %d, %d: %+v and %+v, want one per spec at the same time", i, i+1, a, b)
		}
	}
	for i := 1; i < len(solos); i++ {
		if solos[i].from.Before(solos[i-1].to) {
			t.Errorf("solo iterations overlap: %+v and %+v", solos[i-1], solos[i])
		}
	}
	for l := 0; l < 2; l++ {
		if last, first := duets[4*l+3], solos[4*l]; first.from.Before(last.to) {
			t.Errorf("launch %d: a solo iteration began before the duet half ended", l+1)
		}
	}
	// The runner numbers each half from launch·half: 0–1 and 2–3.
	its := map[string][]int{}
	for _, r := range recs {
		if r.Phase == result.Duet || r.Phase == result.Measure {
			k := r.Phase + "/" + strings.Split(r.Case, "/")[0]
			if !slices.Contains(its[k], r.Iteration) {
				its[k] = append(its[k], r.Iteration)
			}
		}
	}
	for k, v := range its {
		slices.Sort(v)
		if !slices.Equal(v, []int{0, 1, 2, 3}) {
			t.Errorf("%s iterations %v, want 0–3", k, v)
		}
	}
	if d := manifest(t, run).Design; d == nil || d.Name != scenario.DesignDuetSolo || !strings.Contains(d.Line(), "2 iterations in duet") {
		t.Errorf("design %+v", d)
	}
}

// compare.freeze_idle: while one network runs a solo iteration, every
// actor of the other (its nodes and btcd) is paused, and resumed after.
func TestFreezeIdlePausesTheWaitingNetwork(t *testing.T) {
	h := &harness{}
	s := twoSpecs(scenario.DesignInterleaved)
	s.Params = params("Concurrency", "2", "TotalPayments", "6")
	freeze := true
	s.Compare.FreezeIdle = &freeze
	var mu sync.Mutex
	var fakes []*faultyFake
	opts := h.options(s, t)
	opts.StartChain = func(ctx context.Context, be backend.Backend) (network.Chain, backend.ChainEndpoint, error) {
		return fakenet.StartChain(ctx, be.(*faultyFake).Backend)
	}
	opts.NewBackend = func(n NetworkSpec) (backend.Backend, error) {
		f := &faultyFake{Backend: h.fleet.NewBackend(n.RunID), eps: map[string]backend.NodeEndpoint{}}
		mu.Lock()
		fakes = append(fakes, f)
		mu.Unlock()
		return f, nil
	}
	run, _, err := execute(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	// 2 launches × 2 networks; each network waits through the other's 4
	// measured iterations: 4 pauses of each of its 3 actors, each resumed.
	for i, f := range fakes {
		pauses, resumes := 0, 0
		for _, c := range f.calls {
			pauses += boolInt(strings.HasPrefix(c, "pause "))
			resumes += boolInt(strings.HasPrefix(c, "resume "))
		}
		if pauses != 12 || resumes != 12 || !slices.Contains(f.calls, "pause btcd") {
			t.Errorf("network %d: %d pauses, %d resumes (%v), want 12 each, btcd among them", i, pauses, resumes, f.calls)
		}
	}
	if d := manifest(t, run).Design; d == nil || !strings.Contains(d.Iterations, "frozen") {
		t.Errorf("design %+v does not say the waiting networks were frozen", d)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
