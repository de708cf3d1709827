// Package analysis turns the raw result stream into per-case statistics:
// iteration times (BenchmarkDotNet's Mean/Error/StdDev/Median), throughput,
// payment latency percentiles and failures. It reads only records, so
// `lnbench report DIR` can recompute everything from disk.
package analysis

import (
	"fmt"
	"sort"
	"time"

	"github.com/lnbench/lnbench/result"
	"github.com/lnbench/lnbench/stats"
)

// Iteration is one measured batch.
type Iteration struct {
	Index     int     `json:"index"`
	Seconds   float64 `json:"seconds"`
	Payments  int     `json:"payments"`
	Succeeded int     `json:"succeeded"`
	Complete  bool    `json:"complete"`
}

// Latency percentiles of single payments, in milliseconds.
type Latency struct {
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
	PaymentsPerSec float64        `json:"payments_per_sec"`
	Payments       int            `json:"payments"`
	Succeeded      int            `json:"succeeded"`
	Failed         int            `json:"failed"`
	FailureReasons map[string]int `json:"failure_reasons,omitempty"`
	Latency        Latency        `json:"latency"`
	Warnings       []string       `json:"warnings,omitempty"`
}

// ErrorRate is failed / payments.
func (c Case) ErrorRate() float64 {
	if c.Payments == 0 {
		return 0
	}
	return float64(c.Failed) / float64(c.Payments)
}

// Shape is what one iteration of a case consists of.
type Shape struct {
	Payments    int // TotalPayments per invocation
	Invocations int // batches per iteration (BenchmarkDotNet's InvocationCount)
}

// Analyze computes one Case per case id, in the order of ids. shapes give
// each case's expected payments per iteration, to tell complete iterations
// from interrupted ones, and the invocations an iteration time is divided by.
func Analyze(recs []result.Record, ids []string, shapes map[string]Shape) []Case {
	byCase := map[string][]result.Record{}
	for _, r := range recs {
		if r.Phase == result.Measure {
			byCase[r.ID()] = append(byCase[r.ID()], r)
		}
	}
	var out []Case
	for _, id := range ids {
		out = append(out, analyzeCase(id, byCase[id], shapes[id]))
	}
	return out
}

func analyzeCase(id string, recs []result.Record, shape Shape) Case {
	if shape.Invocations < 1 {
		shape.Invocations = 1
	}
	want := shape.Payments * shape.Invocations
	c := Case{ID: id, FailureReasons: map[string]int{}}
	type span struct {
		start, end time.Time
		n, ok      int
	}
	iters := map[int]*span{}
	var lat []float64
	for _, r := range recs {
		s := iters[r.Iteration]
		if s == nil {
			s = &span{start: r.Start, end: r.End}
			iters[r.Iteration] = s
		}
		if r.Start.Before(s.start) {
			s.start = r.Start
		}
		if r.End.After(s.end) {
			s.end = r.End
		}
		s.n++
		c.Payments++
		if r.Status == result.Succeeded {
			s.ok++
			c.Succeeded++
			lat = append(lat, float64(r.Latency())/float64(time.Millisecond))
		} else {
			c.Failed++
			c.FailureReasons[r.FailureReason]++
		}
	}
	idx := make([]int, 0, len(iters))
	for i := range iters {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	var secs []float64
	var total float64
	okInComplete := 0
	for _, i := range idx {
		s := iters[i]
		it := Iteration{Index: i, Seconds: s.end.Sub(s.start).Seconds() / float64(shape.Invocations), Payments: s.n, Succeeded: s.ok, Complete: want == 0 || s.n == want}
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
	if total > 0 {
		c.PaymentsPerSec = float64(okInComplete) / total
	}
	if len(lat) > 0 {
		ps := stats.Percentiles(lat, 50, 90, 95, 99, 99.9, 100)
		sum := 0.0
		for _, l := range lat {
			sum += l
		}
		c.Latency = Latency{Mean: sum / float64(len(lat)), P50: ps[0], P90: ps[1], P95: ps[2], P99: ps[3], P999: ps[4], Max: ps[5]}
	}
	if len(recs) == 0 {
		c.Warnings = append(c.Warnings, "no measured payments")
	}
	if c.Failed > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d of %d payments failed (%.1f%%)", c.Failed, c.Payments, 100*c.ErrorRate()))
	}
	if len(c.FailureReasons) == 0 {
		c.FailureReasons = nil
	}
	return c
}
