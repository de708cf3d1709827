package analysis

import (
	"sort"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/stats"
)

// Launch is one launch of a case: its complete measured iterations on one
// fresh network.
type Launch struct {
	Launch     int `json:"launch"` // 0-based, as the runner numbers them
	Iterations int `json:"iterations"`
	// MeanSeconds is the mean iteration time: the launch's value in a
	// comparison.
	MeanSeconds    float64 `json:"mean_seconds"`
	PaymentsPerSec float64 `json:"payments_per_sec"`
	// P50Ms is the mean of its iterations' median payment latencies: the
	// launch's value when latency is compared (open loop).
	P50Ms float64 `json:"p50_ms,omitempty"`
	// DuetIterations, DuetMeanSeconds and DuetP50Ms are the same figures
	// of the launch's duet iterations (duet-solo design: every network of
	// the round at once), which the verdict's direction test reads; the
	// fields above are then of the iterations the network ran alone.
	DuetIterations  int     `json:"duet_iterations,omitempty"`
	DuetMeanSeconds float64 `json:"duet_mean_seconds,omitempty"`
	DuetP50Ms       float64 `json:"duet_p50_ms,omitempty"`
}

// launchesOf groups the complete iterations by launch, in launch order.
func launchesOf(iters []Iteration, shape Shape) []Launch {
	byLaunch := map[int]*Launch{}
	wall := map[int]float64{}
	ok := map[int]int{}
	for _, it := range iters {
		if !it.Complete {
			continue
		}
		l := 0
		if shape.PerLaunch > 0 {
			l = it.Index / shape.PerLaunch
		}
		if byLaunch[l] == nil {
			byLaunch[l] = &Launch{Launch: l}
		}
		byLaunch[l].Iterations++
		byLaunch[l].MeanSeconds += it.Seconds
		byLaunch[l].P50Ms += it.P50Ms
		wall[l] += it.Seconds * float64(max(1, shape.Invocations))
		ok[l] += it.Succeeded
	}
	var out []Launch
	for l, x := range byLaunch {
		x.MeanSeconds /= float64(x.Iterations)
		x.P50Ms /= float64(x.Iterations)
		if wall[l] > 0 {
			x.PaymentsPerSec = float64(ok[l]) / wall[l]
		}
		out = append(out, *x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Launch < out[j].Launch })
	return out
}

// addDuet puts each launch's complete duet iterations (mean time and mean
// p50) beside its solo figures. A launch with duet iterations only (its
// solo half interrupted) gets none: the verdict pairs the two halves of a
// launch, so it needs both.
func addDuet(c *Case, recs []result.Record, shape Shape) {
	want := shape.Payments * max(1, shape.Invocations)
	iters, idx := spans(recs)
	byLaunch := map[int]*Launch{}
	for _, i := range idx {
		s := iters[i]
		if want > 0 && s.n != want {
			continue
		}
		l := i / shape.DuetPerLaunch
		if byLaunch[l] == nil {
			byLaunch[l] = &Launch{}
		}
		x := byLaunch[l]
		x.DuetIterations++
		x.DuetMeanSeconds += s.end.Sub(s.start).Seconds() / float64(max(1, shape.Invocations))
		if len(s.lat) > 0 {
			x.DuetP50Ms += stats.Percentiles(s.lat, 50)[0]
		}
	}
	for k := range c.Launches {
		if x := byLaunch[c.Launches[k].Launch]; x != nil {
			c.Launches[k].DuetIterations = x.DuetIterations
			c.Launches[k].DuetMeanSeconds = x.DuetMeanSeconds / float64(x.DuetIterations)
			c.Launches[k].DuetP50Ms = x.DuetP50Ms / float64(x.DuetIterations)
		}
	}
}
