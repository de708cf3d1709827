package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/result"
)

// soakRecords makes iterations of 10 payments; iteration i lasts dur(i).
func soakRecords(n int, dur func(i int) time.Duration) []result.Record {
	t0 := time.Unix(1_000_000, 0)
	var recs []result.Record
	at := t0
	for i := 0; i < n; i++ {
		d := dur(i)
		for k := 0; k < 10; k++ {
			recs = append(recs, result.Record{Case: "c", Phase: result.Measure, Iteration: i, Seq: k,
				Start: at, End: at.Add(d), Status: result.Succeeded})
		}
		at = at.Add(d)
	}
	return recs
}

func TestSoakDegrading(t *testing.T) {
	// Throughput falls from 100/s by 1 payment/s per iteration (10 payments).
	recs := soakRecords(20, func(i int) time.Duration {
		return time.Duration(float64(time.Second) * 10 / (100 - float64(i)))
	})
	s := AnalyzeSoak(recs, "c", 10, nil)
	if s.Verdict != "degrading" || len(s.Points) != 20 {
		t.Fatalf("verdict %s, %d points", s.Verdict, len(s.Points))
	}
	// -1 payment/s per 10 payments = -100 per 1000.
	if math.Abs(s.Slope+100) > 1e-6 || math.Abs(s.R2-1) > 1e-9 {
		t.Fatalf("slope %.6f per 1000, R² %.6f", s.Slope, s.R2)
	}
}

func TestSoakStableAndProfilerCost(t *testing.T) {
	// 50/s, but 40/s for iterations inside the window [5 s, 10 s).
	t0 := time.Unix(1_000_000, 0)
	recs := soakRecords(30, func(i int) time.Duration { return 200 * time.Millisecond })
	win := [2]time.Time{t0.Add(2 * time.Second), t0.Add(4 * time.Second)}
	for i := range recs {
		if !recs[i].Start.Before(win[0]) && recs[i].Start.Before(win[1]) {
			recs[i].End = recs[i].Start.Add(250 * time.Millisecond)
		}
	}
	// Re-chain is not needed: each iteration is measured from its own records.
	s := AnalyzeSoak(recs, "c", 10, [][2]time.Time{win})
	if s.Verdict != "stable" {
		t.Fatalf("verdict %s (%+v)", s.Verdict, s.Notes)
	}
	if math.Abs(s.UnsampledPPS-50) > 1e-9 || math.Abs(s.SampledPPS-40) > 1e-9 || math.Abs(s.ProfilerCost-0.2) > 1e-9 {
		t.Fatalf("sampled %.3f unsampled %.3f cost %.3f", s.SampledPPS, s.UnsampledPPS, s.ProfilerCost)
	}
}

func TestSoakTooShort(t *testing.T) {
	s := AnalyzeSoak(soakRecords(3, func(int) time.Duration { return time.Second }), "c", 10, nil)
	if s.Verdict != "inconclusive" {
		t.Fatalf("verdict %s", s.Verdict)
	}
}
