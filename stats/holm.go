package stats

import (
	"math"
	"sort"
)

// Holm adjusts p-values for testing them together (Holm's step-down
// method): rejecting each test whose adjusted p is below alpha keeps the
// chance of any false rejection among them at most alpha, whatever their
// dependence, and it is uniformly more powerful than Bonferroni. NaN
// p-values stay NaN and do not count as tests. Written by hand: gonum has
// no multiple-comparison adjustment, and the method is five lines.
func Holm(ps []float64) []float64 {
	out := make([]float64, len(ps))
	var idx []int
	for i, p := range ps {
		out[i] = math.NaN()
		if !math.IsNaN(p) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return ps[idx[a]] < ps[idx[b]] })
	m, running := len(idx), 0.0
	for rank, i := range idx {
		running = math.Max(running, math.Min(1, float64(m-rank)*ps[i]))
		out[i] = running
	}
	return out
}
