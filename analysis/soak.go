package analysis

import (
	"fmt"
	"math"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/stats"
)

// SoakPoint is one measured iteration of a soak run.
type SoakPoint struct {
	Iteration      int       `json:"iteration"`
	Start          time.Time `json:"start"`
	End            time.Time `json:"end"`
	Cumulative     int       `json:"cumulative_payments"` // successful payments before this iteration
	PaymentsPerSec float64   `json:"payments_per_sec"`
	Sampled        bool      `json:"sampled"` // overlapped a profiling window
}

// Soak is the drift and profiler-cost analysis of a long run at fixed load.
type Soak struct {
	Points []SoakPoint `json:"points"`
	// Drift: payments/s as a linear function of cumulative payments.
	Slope        float64 `json:"slope_per_1000_payments"` // change in payments/s per 1000 payments
	Intercept    float64 `json:"intercept"`
	R2           float64 `json:"r2"`
	RelChange    float64 `json:"relative_change"` // fitted end vs fitted start
	Verdict      string  `json:"verdict"`         // stable | degrading | improving | inconclusive
	SampledPPS   float64 `json:"sampled_payments_per_sec"`
	UnsampledPPS float64 `json:"unsampled_payments_per_sec"`
	// ProfilerCost is 1 - sampled/unsampled throughput (NaN-free: 0 when unknown).
	ProfilerCost float64  `json:"profiler_cost"`
	Notes        []string `json:"notes,omitempty"`
}

// driftThreshold: a fitted change smaller than this over the run is "stable".
const driftThreshold = 0.05

// AnalyzeSoak fits payments/s against cumulative payments over the measured
// iterations of one case and compares sampled with unsampled iterations.
// windows are the profiling windows' [start, end] intervals.
func AnalyzeSoak(recs []result.Record, caseID string, perIteration int, windows [][2]time.Time) Soak {
	var mine []result.Record
	for _, r := range recs {
		if r.Case == caseID && r.Phase == result.Measure {
			mine = append(mine, r)
		}
	}
	iters, idx := spans(mine)
	var out Soak
	cum := 0
	var xs, ys, sampled, unsampled []float64
	for _, i := range idx {
		s := iters[i]
		if perIteration > 0 && s.n < perIteration {
			continue // interrupted at the end of the soak
		}
		p := SoakPoint{Iteration: i, Start: s.start, End: s.end, Cumulative: cum}
		if d := s.end.Sub(s.start).Seconds(); d > 0 {
			p.PaymentsPerSec = float64(s.ok) / d
		}
		for _, w := range windows {
			if s.start.Before(w[1]) && w[0].Before(s.end) {
				p.Sampled = true
			}
		}
		out.Points = append(out.Points, p)
		cum += s.ok
		xs = append(xs, float64(p.Cumulative))
		ys = append(ys, p.PaymentsPerSec)
		if p.Sampled {
			sampled = append(sampled, p.PaymentsPerSec)
		} else {
			unsampled = append(unsampled, p.PaymentsPerSec)
		}
	}
	out.Verdict = "inconclusive"
	if fit, err := stats.LinearFit(xs, ys); err == nil && len(xs) >= 5 {
		out.Slope, out.Intercept, out.R2 = fit.Slope*1000, fit.Intercept, fit.R2
		startPPS := fit.Intercept
		endPPS := fit.Intercept + fit.Slope*xs[len(xs)-1]
		if startPPS > 0 {
			out.RelChange = (endPPS - startPPS) / startPPS
		}
		switch {
		case math.Abs(out.RelChange) < driftThreshold:
			out.Verdict = "stable"
		case out.RelChange < 0:
			out.Verdict = "degrading"
		default:
			out.Verdict = "improving"
		}
		out.Notes = append(out.Notes, fmt.Sprintf("fit over %d iterations: %.3f payments/s per 1000 payments (R² %.2f), %+.1f%% from first to last", len(xs), out.Slope, out.R2, 100*out.RelChange))
	} else {
		out.Notes = append(out.Notes, fmt.Sprintf("only %d complete iterations: too few to fit a drift (need 5)", len(xs)))
	}
	out.SampledPPS, out.UnsampledPPS = stats.Mean(sampled), stats.Mean(unsampled)
	if out.UnsampledPPS > 0 && len(sampled) > 0 {
		out.ProfilerCost = 1 - out.SampledPPS/out.UnsampledPPS
		out.Notes = append(out.Notes, fmt.Sprintf("profiler cost: %.1f payments/s while sampled (%d iterations) vs %.1f unsampled (%d): %.1f%%",
			out.SampledPPS, len(sampled), out.UnsampledPPS, len(unsampled), 100*out.ProfilerCost))
	} else {
		out.Notes = append(out.Notes, "profiler cost unknown: needs iterations both inside and outside sampling windows")
	}
	return out
}
