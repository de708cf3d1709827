package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/scenario"
)

func TestLaunchRoundsABBA(t *testing.T) {
	got := launchRounds([]string{"a", "b"}, scenario.OrderABBA, 0, 0, 4)
	want := [][]string{{"a", "b"}, {"b", "a"}, {"a", "b"}, {"b", "a"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("abba: %v, want %v", got, want)
	}
	// Rounds added later continue the sequence.
	if more := launchRounds([]string{"a", "b"}, scenario.OrderABBA, 0, 4, 6); !reflect.DeepEqual(more, want[:2]) {
		t.Errorf("rounds 5–6: %v", more)
	}
	if three := launchRounds([]string{"a", "b", "c"}, scenario.OrderABBA, 0, 0, 2); !reflect.DeepEqual(three, [][]string{{"a", "b", "c"}, {"c", "b", "a"}}) {
		t.Errorf("three specs: %v", three)
	}
}

func TestLaunchRoundsShuffled(t *testing.T) {
	labels := []string{"a", "b", "c"}
	one := launchRounds(labels, scenario.OrderShuffled, 42, 0, 8)
	if again := launchRounds(labels, scenario.OrderShuffled, 42, 0, 8); !reflect.DeepEqual(one, again) {
		t.Errorf("seed 42 twice: %v then %v", one, again)
	}
	if later := launchRounds(labels, scenario.OrderShuffled, 42, 6, 8); !reflect.DeepEqual(later, one[6:]) {
		t.Errorf("rounds 7–8 planned later %v, planned at once %v", later, one[6:])
	}
	differs := false
	for seed := uint64(1); seed < 20 && !differs; seed++ {
		differs = !reflect.DeepEqual(launchRounds(labels, scenario.OrderShuffled, seed, 0, 8), one)
	}
	if !differs {
		t.Error("every seed gives the same order")
	}
	// Each round runs every spec once; each pair of rounds mirrors, so over
	// two rounds every spec holds each position once from either end.
	for r := 0; r < len(one); r += 2 {
		first, second := strings.Join(one[r], ""), strings.Join(one[r+1], "")
		if len(first) != 3 || !strings.ContainsRune(first, 'a') || !strings.ContainsRune(first, 'b') || !strings.ContainsRune(first, 'c') {
			t.Errorf("round %d: %v", r, one[r])
		}
		if rev := []byte(first); string([]byte{rev[2], rev[1], rev[0]}) != second {
			t.Errorf("rounds %d, %d: %v %v, want the second mirrored", r, r+1, one[r], one[r+1])
		}
	}
}

// A comparison's networks alternate specs case by case, in A B B A order:
// never all of one spec's launches first.
func TestPlanInterleavesSpecs(t *testing.T) {
	s := smallScenario()
	s.Nodes, _ = scenario.ParseNodeFlags([]string{"a=lnd@v0.21.0-beta", "b=lnd@v0.21.0-beta"})
	s.Baseline = "a"
	s.Job.LaunchCount = 2
	plans, err := plan(s)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range plans {
		names = append(names, p.name)
	}
	want := []string{
		"launch1/Node=a/Concurrency=1/TotalPayments=6", "launch1/Node=b/Concurrency=1/TotalPayments=6",
		"launch1/Node=a/Concurrency=3/TotalPayments=6", "launch1/Node=b/Concurrency=3/TotalPayments=6",
		"launch2/Node=b/Concurrency=1/TotalPayments=6", "launch2/Node=a/Concurrency=1/TotalPayments=6",
		"launch2/Node=b/Concurrency=3/TotalPayments=6", "launch2/Node=a/Concurrency=3/TotalPayments=6",
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("networks in order:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
	d := designOf(s, plans, "")
	if d == nil || d.Name != scenario.DefaultDesign || d.Order != "abba" || d.Sequence() != "a b | b a" || d.Looks != 0 || !d.Frozen {
		t.Errorf("design %+v", d)
	}
	s.Compare.Design = scenario.DesignDuet
	d = designOf(s, plans, "")
	// AlicePaysBob: 3 actors a network, 6 CPUs for two networks' own sets.
	if want := "a CPU set per network needs a core per actor, 6 for 2 networks of 3 actors"; len(allowedCPUs()) < 6 && !strings.Contains(d.CPUs, want) {
		t.Errorf("design CPUs %q, want %q", d.CPUs, want)
	}
	if designOf(smallScenario(), nil, "") != nil {
		t.Error("one spec has no design to record")
	}
}

func TestLooks(t *testing.T) {
	for _, tt := range []struct{ planned, max, want int }{{6, 6, 1}, {6, 20, 8}, {6, 7, 2}, {2, 6, 3}} {
		if got := looks(tt.planned, tt.max); got != tt.want {
			t.Errorf("looks(%d, %d) = %d, want %d", tt.planned, tt.max, got, tt.want)
		}
	}
}

// Until known on fake nodes whose launches alternate fast and slow, so the
// per-round ratios swing both ways and no verdict can be known: the run
// adds blocks of two rounds up to the cap, records every round, and says
// it stopped at the cap.
func TestUntilKnownStopsAtTheCap(t *testing.T) {
	h := &harness{}
	var pays atomic.Int64
	const perNetwork = 3 * 6 // (1 warm-up + 2 measured) iterations × 6 payments
	h.fleet.Hooks.Pay = func(ctx context.Context, payer string, amt int64) (node.PaymentResult, error) {
		n := (pays.Add(1) - 1) / perNetwork
		if n%2 == 1 {
			time.Sleep(4 * time.Millisecond)
		}
		return node.PaymentResult{Succeeded: true, Hops: 1}, nil
	}
	s := smallScenario()
	s.Params = params("Concurrency", "1", "TotalPayments", "6")
	s.Nodes, _ = scenario.ParseNodeFlags([]string{"a=lnd@v0.21.0-beta", "b=lnd@v0.21.0-beta"})
	s.Baseline = "a"
	s.Job.LaunchCount = 2
	s.Compare = scenario.Compare{UntilKnown: true, MaxLaunches: 6}
	keepWaitingRunning(&s)
	opts := h.options(s, t)
	var looked []int // how many records each look was given
	opts.UnknownVerdicts = func(recs []result.Record, m record.Manifest) (int, error) {
		looked = append(looked, len(recs))
		return report.UnknownVerdicts(recs, m)
	}
	run, recs, err := execute(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	// The looks read the stream in memory: the last one, after every
	// launch, holds what payments.jsonl holds.
	if len(looked) != 3 || looked[0] >= looked[1] || looked[1] >= looked[2] || looked[2] != len(recs) {
		t.Errorf("looks given %v records, want 3 growing looks, the last all %d of payments.jsonl", looked, len(recs))
	}
	iters := map[string]int{}
	for _, r := range recs {
		if r.Phase == result.Measure {
			iters[fmt.Sprintf("%s/%d", r.Case, r.Iteration)]++
		}
	}
	if len(iters) != 2*6*2 {
		t.Errorf("%d measured iterations, want 2 specs × 6 launches × 2", len(iters))
	}
	rep := render(t, run)
	d := rep.Design
	if d == nil || len(d.Rounds) != 6 || d.Looks != 3 || !d.UntilKnown || d.Stopped != "cap reached: 6 launches per spec, 1 verdict(s) not yet known" {
		t.Fatalf("design %+v", d)
	}
	for _, c := range rep.Cases {
		if c.Ratio == nil || len(c.Launches) != 6 || c.Node == "b" && (c.Ratio.Verdict != report.VerdictUnknown || c.Ratio.NNew != 6 || !c.Ratio.Paired) {
			t.Errorf("case %s: launches %d ratio %+v", c.ID, len(c.Launches), c.Ratio)
		}
	}
	md, _ := os.ReadFile(filepath.Join(run.Dir, "summary.md"))
	if !strings.Contains(string(md), "until known, at most 6 launches per spec, 3 looks at alpha/3 each: cap reached") || !strings.Contains(string(md), "98.33% CI") {
		t.Errorf("summary.md does not describe the until-known run:\n%s", md)
	}
}
