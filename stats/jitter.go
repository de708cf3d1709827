package stats

import "math"

// Jitter returns the mean absolute difference between consecutive values,
// in the order given (e.g. payment latencies in send order). Unlike
// StdDev it is insensitive to slow drift and measures step-to-step
// variation. It is 0 for fewer than 2 values.
func Jitter(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	sum := 0.0
	for i := 1; i < len(xs); i++ {
		sum += math.Abs(xs[i] - xs[i-1])
	}
	return sum / float64(len(xs)-1)
}
