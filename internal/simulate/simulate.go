// Package simulate makes synthetic closed-loop runs with faults in them,
// payments and fault records as the harness writes them: fixtures for the
// recovery analysis and its reports, never used on real runs.
package simulate

import (
	"time"

	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/record/result"
)

// Attempt is how one payment went.
type Attempt struct {
	Status, Reason, Code string
	Latency              time.Duration
}

// Model decides a payment's fate from its worker, its start and the
// latency it would have had with no fault.
type Model func(worker int, start time.Time, normal time.Duration) Attempt

// Healthy is a run without faults.
func Healthy(_ int, _ time.Time, normal time.Duration) Attempt {
	return Attempt{Status: result.Succeeded, Latency: normal}
}

// Case is one case of a closed-loop run as the harness runs it: Workers
// take payments from a shared count, PerIteration per iteration, each
// payment Latency plus up to 20 ms of deterministic jitter. Warm-up pays
// back to back for Warmup before Origin; measured iteration 0 starts at
// Origin, each next one 50 ms after the last payment of the one before.
type Case struct {
	ID                       string
	Origin                   time.Time
	Warmup                   time.Duration
	Iterations, PerIteration int
	Workers                  int
	Latency                  time.Duration
	Model                    Model
}

// Payments runs the case and returns its records.
func (c Case) Payments() []result.Record {
	var out []result.Record
	pay := func(phase string, it, seq, w, n int, t time.Time) result.Record {
		normal := c.Latency + time.Duration((w*7+n*13)%20)*time.Millisecond
		a := c.Model(w, t, normal)
		r := result.Record{Case: c.ID, Phase: phase, Iteration: it, Worker: w, Seq: seq, Payer: "alice", Payee: "bob",
			Mode: "invoice", Start: t, End: t.Add(a.Latency), PaymentNs: int64(a.Latency), Status: a.Status,
			FailureReason: a.Reason, GRPCCode: a.Code}
		if a.Status == result.Succeeded {
			r.Hops, r.Parts, r.Attempts = 1, 1, 1
		}
		out = append(out, r)
		return r
	}
	free := make([]time.Time, c.Workers) // when each worker takes its next payment
	start := func(at time.Time) {
		for w := range free {
			free[w] = at.Add(time.Duration(w) * time.Millisecond) // goroutines start 1 ms apart
		}
	}
	n := 0
	start(c.Origin.Add(-c.Warmup))
	for w := range free {
		for seq := 0; ; seq++ {
			if free[w].Add(c.Latency + 20*time.Millisecond).After(c.Origin) {
				break
			}
			free[w] = pay(result.Warmup, 0, seq*c.Workers+w, w, n, free[w]).End.Add(2 * time.Millisecond)
			n++
		}
	}
	at := c.Origin
	for it := range c.Iterations {
		start(at)
		last := at
		for seq := range c.PerIteration {
			w := 0
			for i := range free {
				if free[i].Before(free[w]) {
					w = i
				}
			}
			r := pay(result.Measure, it, seq, w, n, free[w])
			n++
			free[w] = r.End.Add(2 * time.Millisecond) // the worker's own overhead
			if r.End.After(last) {
				last = r.End
			}
		}
		at = last.Add(50 * time.Millisecond)
	}
	return out
}

// IterationAt is the measured iteration running at t (-1 before the first).
func IterationAt(recs []result.Record, caseID string, t time.Time) int {
	it := -1
	for _, r := range recs {
		if r.Case == caseID && r.Phase == result.Measure && !r.Start.After(t) && r.Iteration > it {
			it = r.Iteration
		}
	}
	return it
}

// Restart models bob restarted at start, answering RPCs again at end and
// his channels active again at active: payments in flight at start on even
// workers hang until he is back then succeed, on odd workers fail with a
// gRPC Unavailable; new ones meet a refused connection after 1 s until
// end, then no route (300 ms) until active, then run 60% slower for 2 s
// while the channels' state settles.
func Restart(start, end, active time.Time) Model {
	return func(w int, t time.Time, normal time.Duration) Attempt {
		switch {
		case t.Before(start) && t.Add(normal).After(start):
			if w%2 == 0 {
				return Attempt{Status: result.Succeeded, Latency: active.Sub(t) + 300*time.Millisecond}
			}
			return Attempt{Status: result.Error, Code: "Unavailable", Latency: start.Sub(t) + 10*time.Millisecond}
		case t.Before(start):
			return Attempt{Status: result.Succeeded, Latency: normal}
		case t.Before(end):
			return Attempt{Status: result.Error, Code: "Unavailable", Latency: time.Second}
		case t.Before(active):
			return Attempt{Status: result.Failed, Reason: "FAILURE_REASON_NO_ROUTE", Latency: 300 * time.Millisecond}
		case t.Before(active.Add(2 * time.Second)):
			return Attempt{Status: result.Succeeded, Latency: normal * 16 / 10}
		}
		return Attempt{Status: result.Succeeded, Latency: normal}
	}
}

// Delay models an impairment adding d to every payment started in [start, end).
func Delay(start, end time.Time, d time.Duration) Model {
	return func(_ int, t time.Time, normal time.Duration) Attempt {
		if !t.Before(start) && t.Before(end) {
			normal += d
		}
		return Attempt{Status: result.Succeeded, Latency: normal}
	}
}

// Fixture is the standard faulted run: two cases of 3 measured iterations
// of 300 payments after a 5 s warm-up, 200 ms payments, 60 s apart from
// t0. Concurrency=4 has bob restarted 12 s into measurement, back after
// 5 s, channels active 1.5 s later; Concurrency=8 has a 50 ms delay on bob
// from 10 s to 20 s.
func Fixture(t0 time.Time) ([]result.Record, []faults.Record) {
	o1, o2 := t0, t0.Add(60*time.Second)
	rs, re, ra := o1.Add(12*time.Second), o1.Add(17*time.Second), o1.Add(18500*time.Millisecond)
	ds, de := o2.Add(10*time.Second), o2.Add(20*time.Second)
	base := Case{Warmup: 5 * time.Second, Iterations: 3, PerIteration: 300, Latency: 200 * time.Millisecond}
	c1, c2 := base, base
	c1.ID, c1.Origin, c1.Workers, c1.Model = "Concurrency=4/TotalPayments=300", o1, 4, Restart(rs, re, ra)
	c2.ID, c2.Origin, c2.Workers, c2.Model = "Concurrency=8/TotalPayments=300", o2, 8, Delay(ds, de, 50*time.Millisecond)
	recs := append(c1.Payments(), c2.Payments()...)
	fs := []faults.Record{
		{Network: "launch1", Case: c1.ID, Iteration: IterationAt(recs, c1.ID, rs), Kind: faults.Restart, Target: "bob", Spec: "restart bob at 12s",
			Start: rs, End: re, ChannelsActive: ra},
		{Network: "launch2", Case: c2.ID, Iteration: IterationAt(recs, c2.ID, ds), Kind: faults.Delay, Target: "bob", Spec: "delay bob 50ms at 10s for 10s",
			Start: ds, End: de},
	}
	return recs, fs
}
