package stats

import (
	"math"
	"sort"
)

// Quantile returns the p-quantile of an ascending sample using linear
// interpolation between closest ranks: h = (n-1)p, then
// sorted[⌊h⌋] + (h-⌊h⌋)(sorted[⌊h⌋+1]-sorted[⌊h⌋]).
// This is Hyndman & Fan type 7, the default of R's quantile() and of
// NumPy, so numbers can be checked against either.
//
// p is clamped to [0, 1]. The result is NaN for an empty sample or a NaN p,
// since there is no honest value to return. sorted must be ascending and is
// not checked, to keep this O(1).
func Quantile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 || math.IsNaN(p) {
		return math.NaN()
	}
	p = math.Min(math.Max(p, 0), 1)
	h := float64(n-1) * p
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// Percentiles returns the requested percentiles of xs (unsorted; not
// modified). ps are in percent, 0–100 (e.g. 50, 90, 99), matching the
// usual "p99 latency" vocabulary; use Quantile for fractions. Non-finite
// values in xs are ignored. Each result is NaN when xs has no finite value.
func Percentiles(xs []float64, ps ...float64) []float64 {
	sorted, _ := sortedFinite(xs)
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = Quantile(sorted, p/100)
	}
	return out
}

// sortedFinite returns an ascending copy of the finite values in xs and
// how many non-finite values it dropped. Copying keeps callers' slices
// (often in measurement order) intact.
func sortedFinite(xs []float64) ([]float64, int) {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		if finite(x) {
			out = append(out, x)
		}
	}
	sort.Float64s(out)
	return out, len(xs) - len(out)
}
