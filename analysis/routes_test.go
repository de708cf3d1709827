package analysis

import (
	"reflect"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/result"
)

func TestAnalyzeRoutes(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rec := func(iteration int, startS, endS float64, payee, status string, hops int, reason string) result.Record {
		return result.Record{Case: "c", Phase: result.Measure, Iteration: iteration, Payee: payee, Status: status, Hops: hops, FailureReason: reason,
			Start: t0.Add(time.Duration(startS * float64(time.Second))), End: t0.Add(time.Duration(endS * float64(time.Second)))}
	}
	recs := []result.Record{
		// Iteration 0 spans 0..2 s, iteration 1 spans 10..12 s: 4 s measured.
		rec(0, 0, 1, "a", result.Succeeded, 2, ""),
		rec(0, 0.5, 2, "b", result.Succeeded, 3, ""),
		rec(1, 10, 11, "a", result.Succeeded, 2, ""),
		rec(1, 10, 12, "b", result.Failed, 0, "FAILURE_REASON_NO_ROUTE"),
		rec(1, 10, 11, "c", result.Error, 0, ""),
		{Case: "c", Phase: result.Warmup, Payee: "z", Status: result.Succeeded, Hops: 9, Start: t0, End: t0.Add(time.Hour)},
	}
	got := AnalyzeRoutes(recs)
	want := Routes{
		Payees: 3,
		Hops: []HopCount{
			// Two 1 s payments over 2 hops; one 1.5 s payment over 3.
			{Case: "c", Hops: 2, Payments: 2, Share: 2.0 / 3, PerSecond: 0.5, P50Ms: 1000, P90Ms: 1000, P99Ms: 1000},
			{Case: "c", Hops: 3, Payments: 1, Share: 1.0 / 3, PerSecond: 0.25, P50Ms: 1500, P90Ms: 1500, P99Ms: 1500},
		},
		Failures: []FailureCount{{Case: "c", Reason: "FAILURE_REASON_NO_ROUTE", Count: 1}, {Case: "c", Reason: "error", Count: 1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// Each hop count gets the percentiles of its own payments' latencies.
func TestRoutesLatencyPerHopCount(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var recs []result.Record
	for i := range 10 {
		for _, h := range []struct{ hops, base int }{{2, 10}, {4, 100}} {
			lat := time.Duration(h.base+i) * time.Millisecond
			recs = append(recs, result.Record{Case: "c", Phase: result.Measure, Payee: "p", Status: result.Succeeded, Hops: h.hops, Start: t0, End: t0.Add(lat)})
		}
	}
	got := AnalyzeRoutes(recs).Hops
	if len(got) != 2 {
		t.Fatalf("hops %+v", got)
	}
	for i, want := range [][3]float64{{14.5, 18.1, 18.91}, {104.5, 108.1, 108.91}} {
		h := got[i]
		if d := [3]float64{h.P50Ms - want[0], h.P90Ms - want[1], h.P99Ms - want[2]}; d[0]*d[0]+d[1]*d[1]+d[2]*d[2] > 1e-9 {
			t.Errorf("%d hops: p50 %g p90 %g p99 %g, want %v", h.Hops, h.P50Ms, h.P90Ms, h.P99Ms, want)
		}
	}
}
