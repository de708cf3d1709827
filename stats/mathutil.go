package stats

import "math"

// finite reports whether v is neither NaN nor ±Inf.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// mean is sum/n (exact for small integers, so a zero mean stays exactly
// 0), falling back to a running update if the sum overflows.
func mean(xs []float64) float64 {
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
