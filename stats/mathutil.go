package stats

import "math"

// finite reports whether v is neither NaN nor ±Inf.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Mean is the arithmetic mean of xs: sum/n (exact for small integers, so
// a zero mean stays exactly 0), falling back to a running update if the
// sum overflows; 0 for no values. It does not drop non-finite values
// (Summarize does).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sum := 0.0
	for _, v := range xs {
		sum += v
	}
	if !math.IsInf(sum, 0) {
		return sum / float64(len(xs))
	}
	m := 0.0
	for i, v := range xs {
		m += (v - m) / float64(i+1)
	}
	return m
}
