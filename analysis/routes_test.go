package analysis

import (
	"reflect"
	"testing"
	"time"

	"github.com/lnbench/lnbench/result"
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
			{Case: "c", Hops: 2, Payments: 2, Share: 2.0 / 3, PerSecond: 0.5},
			{Case: "c", Hops: 3, Payments: 1, Share: 1.0 / 3, PerSecond: 0.25},
		},
		Failures: []FailureCount{{Case: "c", Reason: "FAILURE_REASON_NO_ROUTE", Count: 1}, {Case: "c", Reason: "error", Count: 1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
