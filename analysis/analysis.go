// Package analysis turns the raw result stream into per-case statistics:
// iteration times (BenchmarkDotNet's Mean/Error/StdDev/Median), throughput,
// payment latency percentiles and failures. It reads only records, so
// `lnbench report DIR` can recompute everything from disk.
package analysis

import (
	"fmt"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/stats"
)

// Iteration is one measured batch.
type Iteration struct {
	Index     int     `json:"index"`
	Seconds   float64 `json:"seconds"`
	Payments  int     `json:"payments"`
	Succeeded int     `json:"succeeded"`
	Complete  bool    `json:"complete"`
	// PaymentsPerSec is Succeeded over the iteration's whole wall time (all
	// invocations), the per-iteration sample `lnbench compare` tests.
	PaymentsPerSec float64 `json:"payments_per_sec"`
	// P50Ms and P99Ms are the latencies of the iteration's successful payments.
	P50Ms float64 `json:"p50_ms"`
	P99Ms float64 `json:"p99_ms"`
	// LatencyCounts counts successful payments per bin of the case's
	// LatencyHistogram: one row of the iteration × latency heatmap.
	LatencyCounts []int `json:"latency_counts,omitempty"`
}

// Latency percentiles of single payments, in milliseconds.
type Latency struct {
	Min  float64 `json:"min_ms"`
	Mean float64 `json:"mean_ms"`
	P50  float64 `json:"p50_ms"`
	P90  float64 `json:"p90_ms"`
	P95  float64 `json:"p95_ms"`
	P99  float64 `json:"p99_ms"`
	P999 float64 `json:"p99_9_ms"`
	Max  float64 `json:"max_ms"`
}

// Case is everything computed for one case.
type Case struct {
	ID         string        `json:"id"`
	Iterations []Iteration   `json:"iterations"`
	Time       stats.Summary `json:"iteration_seconds"`
	// PaymentsPerSec is successful measured payments divided by the summed
	// wall time of the measured iterations.
	PaymentsPerSec float64 `json:"payments_per_sec"`
	// OfferedPerSec and ServedPerSec are an open loop's pacer rate and its
	// successful completions per second (see servedAndOffered); 0 in a
	// closed loop. Served below offered is saturation.
	OfferedPerSec float64 `json:"offered_per_sec,omitempty"`
	ServedPerSec  float64 `json:"served_per_sec,omitempty"`
	Payments      int     `json:"payments"`
	Succeeded     int     `json:"succeeded"`
	Failed        int     `json:"failed"`
	// Aborted payments were in flight when the harness stopped: recorded,
	// neither succeeded nor failed, and their iteration is incomplete.
	Aborted        int            `json:"aborted,omitempty"`
	FailureReasons map[string]int `json:"failure_reasons,omitempty"`
	Latency        Latency        `json:"latency"`
	// LatencyHistogram bins the successful payments' latencies in ms.
	LatencyHistogram stats.Histogram `json:"latency_histogram_ms"`
	// Timeline counts successful payments completed in each one-second
	// bucket since the case's first measured payment started.
	Timeline []int  `json:"throughput_timeline"`
	Spread   Spread `json:"spread"`
	// Launches summarize the case per launch (a fresh network each), when
	// it ran more than one: the unit a comparison of specs tests, since
	// launches differ more than iterations within one.
	Launches []Launch `json:"launches,omitempty"`
	// Warnings are data problems (incomplete iterations, failures).
	Warnings []string `json:"warnings,omitempty"`
	// Notes is everything a reader should know about the case, in order:
	// the Warnings, then sample size, stability, drift and outlier lines.
	Notes []string `json:"notes,omitempty"`
}

// ErrorRate is failed / payments.
func (c Case) ErrorRate() float64 {
	if c.Payments == 0 {
		return 0
	}
	return float64(c.Failed) / float64(c.Payments)
}

// ErrorRates is the share of payments that failed, per failure reason.
func (c Case) ErrorRates() map[string]float64 {
	out := map[string]float64{}
	for k, n := range c.FailureReasons {
		out[k] = float64(n) / float64(c.Payments)
	}
	return out
}

// Shape is what one iteration of a case consists of.
type Shape struct {
	Payments    int // TotalPayments per invocation
	Invocations int // batches per iteration (BenchmarkDotNet's InvocationCount)
	// PerLaunch is the measured iterations of one launch (IterationCount):
	// the runner numbers launch L's iterations from L·PerLaunch. 0 means
	// one launch (a timed job).
	PerLaunch int
	// DuetPerLaunch is the duet iterations of one launch in the duet-solo
	// design (result.Duet records), numbered from L·DuetPerLaunch; 0 in
	// any other design.
	DuetPerLaunch int
}

// Analyze computes one Case per case id, in the order of ids. shapes give
// each case's expected payments per iteration, to tell complete iterations
// from interrupted ones, and the invocations an iteration time is divided by.
func Analyze(recs []result.Record, ids []string, shapes map[string]Shape) []Case {
	byCase := map[string][]result.Record{}
	duets := map[string][]result.Record{}
	for _, r := range recs {
		switch r.Phase {
		case result.Measure:
			byCase[r.ID()] = append(byCase[r.ID()], r)
		case result.Duet:
			duets[r.ID()] = append(duets[r.ID()], r)
		}
	}
	var out []Case
	for _, id := range ids {
		c := analyzeCase(id, byCase[id], shapes[id])
		if shapes[id].DuetPerLaunch > 0 {
			addDuet(&c, duets[id], shapes[id])
		}
		out = append(out, c)
	}
	return out
}

func analyzeCase(id string, recs []result.Record, shape Shape) Case {
	if shape.Invocations < 1 {
		shape.Invocations = 1
	}
	want := shape.Payments * shape.Invocations
	c := Case{ID: id, FailureReasons: map[string]int{}}
	iters, idx := spans(recs)
	var lat []float64
	for _, r := range recs {
		c.Payments++
		switch r.Status {
		case result.Succeeded:
			c.Succeeded++
			lat = append(lat, float64(r.Latency())/float64(time.Millisecond))
		case result.Aborted:
			c.Aborted++
		default:
			c.Failed++
			c.FailureReasons[r.FailureReason]++
		}
	}
	var secs []float64
	var total float64
	okInComplete := 0
	c.LatencyHistogram = stats.NewHistogram(lat, 0)
	for _, i := range idx {
		s := iters[i]
		wall := s.end.Sub(s.start).Seconds()
		it := Iteration{Index: i, Seconds: wall / float64(shape.Invocations), Payments: s.n, Succeeded: s.ok, Complete: want == 0 || s.n == want}
		if wall > 0 {
			it.PaymentsPerSec = float64(s.ok) / wall
		}
		if len(s.lat) > 0 {
			ps := stats.Percentiles(s.lat, 50, 99)
			it.P50Ms, it.P99Ms = ps[0], ps[1]
		}
		it.LatencyCounts = binCounts(c.LatencyHistogram, s.lat)
		c.Iterations = append(c.Iterations, it)
		if it.Complete {
			secs = append(secs, it.Seconds)
			total += it.Seconds * float64(shape.Invocations)
			okInComplete += s.ok
		} else {
			c.Warnings = append(c.Warnings, fmt.Sprintf("iteration %d is incomplete (%d of %d payments): left out of the iteration statistics", i, s.n, want))
		}
	}
	c.Time = stats.Summarize(secs)
	if ls := launchesOf(c.Iterations, shape); len(ls) > 1 {
		c.Launches = ls // one launch is the case itself
	}
	if total > 0 {
		c.PaymentsPerSec = float64(okInComplete) / total
	}
	if len(lat) > 0 {
		ps := stats.Percentiles(lat, 0, 50, 90, 95, 99, 99.9, 100)
		sum := 0.0
		for _, l := range lat {
			sum += l
		}
		c.Latency = Latency{Min: ps[0], Mean: sum / float64(len(lat)), P50: ps[1], P90: ps[2], P95: ps[3], P99: ps[4], P999: ps[5], Max: ps[6]}
	}
	c.Timeline = timeline(recs)
	servedAndOffered(&c, recs)
	if len(recs) == 0 {
		c.Warnings = append(c.Warnings, "no measured payments")
	}
	if c.Failed > 0 {
		c.Warnings = append(c.Warnings, failureLine(c))
	}
	if c.Aborted > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d payment(s) were in flight when the harness stopped: recorded as aborted, left out of latency and failure figures", c.Aborted))
	}
	if len(c.FailureReasons) == 0 {
		c.FailureReasons = nil
	}
	c.Spread = spreadOf(c.Iterations, c.Time)
	c.Notes = notes(c)
	return c
}
