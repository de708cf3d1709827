// Package simulate makes synthetic closed-loop runs with faults in them,
// payments and fault records as the harness writes them: fixtures for the
// recovery analysis and its reports, never used on real runs.
package simulate

import (
	"time"

	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/result"
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

// Case is one case of a closed-loop run: Workers pay back to back, each
// payment Latency plus up to 20 ms of deterministic jitter, from Warmup
// before Origin (the first measured payment) through Iterations measured
// iterations of IterLen each. Measurement starts afresh at Origin, the
// workers 1 ms apart, as the harness starts an iteration.
type Case struct {
	ID                  string
	Origin              time.Time
	Warmup, IterLen     time.Duration
	Iterations, Workers int
	Latency             time.Duration
	Model               Model
}

// Payments runs the case and returns its records in start order per worker.
func (c Case) Payments() []result.Record {
	var out []result.Record
	stop := c.Origin.Add(time.Duration(c.Iterations) * c.IterLen)
	seq := map[[2]int]int{}
	for w := range c.Workers {
		// Workers start 1 ms apart, as goroutines do.
		t := c.Origin.Add(-c.Warmup + time.Duration(w)*time.Millisecond)
		for n := 0; t.Before(stop); n++ {
			normal := c.Latency + time.Duration((w*7+n*13)%20)*time.Millisecond
			if t.Before(c.Origin) && t.Add(normal).After(c.Origin) {
				t = c.Origin.Add(time.Duration(w) * time.Millisecond) // warm-up over: measurement starts afresh
			}
			a := c.Model(w, t, normal)
			phase, it := result.Measure, int(t.Sub(c.Origin)/c.IterLen)
			if t.Before(c.Origin) {
				phase, it = result.Warmup, 0
			}
			key := [2]int{boolInt(phase == result.Measure), it}
			r := result.Record{Case: c.ID, Phase: phase, Iteration: it, Worker: w, Seq: seq[key], Payer: "alice", Payee: "bob",
				Mode: "invoice", Start: t, End: t.Add(a.Latency), PaymentNs: int64(a.Latency), Status: a.Status,
				FailureReason: a.Reason, GRPCCode: a.Code}
			if a.Status == result.Succeeded {
				r.Hops, r.Parts, r.Attempts = 1, 1, 1
			}
			seq[key]++
			out = append(out, r)
			t = r.End.Add(2 * time.Millisecond) // the worker's own overhead
		}
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
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
// of 10 s after a 5 s warm-up, 200 ms payments. Concurrency=4 has bob
// restarted 12 s into measurement, back after 5 s, channels active 1.5 s
// later; Concurrency=8 has a 50 ms delay on bob from 10 s to 20 s. The
// cases start 60 s apart from t0.
func Fixture(t0 time.Time) ([]result.Record, []faults.Record) {
	o1, o2 := t0, t0.Add(60*time.Second)
	rs, re, ra := o1.Add(12*time.Second), o1.Add(17*time.Second), o1.Add(18500*time.Millisecond)
	ds, de := o2.Add(10*time.Second), o2.Add(20*time.Second)
	base := Case{Warmup: 5 * time.Second, IterLen: 10 * time.Second, Iterations: 3, Latency: 200 * time.Millisecond}
	c1, c2 := base, base
	c1.ID, c1.Origin, c1.Workers, c1.Model = "Concurrency=4", o1, 4, Restart(rs, re, ra)
	c2.ID, c2.Origin, c2.Workers, c2.Model = "Concurrency=8", o2, 8, Delay(ds, de, 50*time.Millisecond)
	recs := append(c1.Payments(), c2.Payments()...)
	fs := []faults.Record{
		{Network: "launch1", Case: c1.ID, Iteration: 1, Kind: faults.Restart, Target: "bob", Spec: "restart bob at 12s",
			Start: rs, End: re, ChannelsActive: ra},
		{Network: "launch2", Case: c2.ID, Iteration: 1, Kind: faults.Delay, Target: "bob", Spec: "delay bob 50ms at 10s for 10s",
			Start: ds, End: de},
	}
	return recs, fs
}
