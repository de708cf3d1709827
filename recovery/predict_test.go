package recovery

import (
	"testing"
	"time"

	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/internal/simulate"
	"github.com/lnbench/lnbench/record/result"
)

func TestPredictedAdded(t *testing.T) {
	ms := time.Millisecond
	direct := result.Record{Payer: "alice", Payee: "bob", Hops: 1}
	viaCarol := result.Record{Payer: "alice", Payee: "bob", Hops: 2}
	unknown := result.Record{Payer: "alice", Payee: "bob"}
	for _, c := range []struct {
		name string
		f    faults.Record
		r    result.Record
		want time.Duration
	}{
		{"the payee: one hop, three round trips", faults.Record{Kind: faults.Delay, Target: "bob", Spec: "delay bob 100ms at 5s for 10s"}, direct, 300 * ms},
		{"the payer likewise", faults.Record{Kind: faults.Delay, Target: "alice", Spec: "delay alice 50ms at 5s for 10s"}, viaCarol, 150 * ms},
		{"an intermediary: two hops", faults.Record{Kind: faults.Delay, Target: "carol", Spec: "delay carol 50ms at 5s for 10s"}, viaCarol, 300 * ms},
		{"a node off a direct route", faults.Record{Kind: faults.Delay, Target: "carol", Spec: "delay carol 50ms at 5s for 10s"}, direct, 0},
		{"an intermediary, hops unknown: assumed on the route", faults.Record{Kind: faults.Delay, Target: "carol", Spec: "delay carol 50ms at 5s for 10s"}, unknown, 300 * ms},
		{"the chain: not on a payment's path", faults.Record{Kind: faults.Delay, Target: "btcd", Spec: "delay btcd 50ms at 5s for 10s"}, direct, 0},
		{"a link on the route: one hop", faults.Record{Kind: faults.Delay, Target: "carol~bob", Spec: "delay carol~bob 50ms at 5s for 10s"}, viaCarol, 150 * ms},
		{"the direct link", faults.Record{Kind: faults.Delay, Target: "bob~alice", Spec: "delay bob~alice 50ms at 5s for 10s"}, direct, 150 * ms},
		{"a link off a direct route", faults.Record{Kind: faults.Delay, Target: "carol~bob", Spec: "delay carol~bob 50ms at 5s for 10s"}, direct, 0},
		{"loss predicts nothing", faults.Record{Kind: faults.Loss, Target: "bob", Spec: "loss bob 20% at 5s for 10s"}, direct, 0},
		{"no spec: nothing", faults.Record{Kind: faults.Delay, Target: "bob"}, direct, 0},
	} {
		if got := predictedAdded(c.f, c.r); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// A delay longer than the pre-fault latency stalls nothing that took what
// the fault predicts (the issue: 100 ms on bob counted all 79 payments
// stalled against 3× the pre-fault median); a payment far beyond the
// prediction still counts.
func TestStallsJudgedAgainstThePrediction(t *testing.T) {
	ds, de := t0.Add(12*time.Second), t0.Add(22*time.Second)
	delayed := simulate.Delay(ds, de, 300*time.Millisecond) // 3 round trips of 100 ms
	hungOne := false
	hung := func(w int, at time.Time, normal time.Duration) simulate.Attempt {
		a := delayed(w, at, normal)
		if w == 0 && !hungOne && !at.Before(ds.Add(3*time.Second)) {
			a.Latency, hungOne = 3*time.Second, true // one payment hung well past the prediction
		}
		return a
	}
	c := simulate.Case{ID: "C=4", Origin: t0, Iterations: 1, PerIteration: 1200, Workers: 4, Latency: 80 * time.Millisecond, Model: hung}
	recs := c.Payments()
	f := Analyze(recs, []faults.Record{{Case: "C=4", Kind: faults.Delay, Target: "bob", Spec: "delay bob 100ms at 12s for 10s", Start: ds, End: de}}, Default)[0]
	if got := val(t, "stalled", f.Stalled); got != 1 {
		t.Errorf("stalled %d, want the one hung payment", got)
	}
	before := val(t, "p50 before", f.LatencyBefore.P50)
	if added := val(t, "predicted", f.PredictedAddedMs); added != 300 {
		t.Errorf("predicted added %v ms, want 300", added)
	}
	if thr := val(t, "threshold", f.StallThresholdMs); thr != Default.StallFactor*(before+300) {
		t.Errorf("threshold %v ms, want 3 × (%v + 300)", thr, before)
	}
	// Against 3× the pre-fault median alone, nearly every payment would be stalled.
	if f2 := Analyze(recs, []faults.Record{{Case: "C=4", Kind: faults.Loss, Target: "bob", Spec: "loss bob 20% at 12s for 10s", Start: ds, End: de}}, Default)[0]; val(t, "stalled", f2.Stalled) < 90 {
		t.Errorf("a loss predicts no added latency: stalled %d, want most", *f2.Stalled)
	}
}
