package analysis

import "sort"

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
