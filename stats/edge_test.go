package stats

import (
	"math"
	"testing"
)

// TestEdgeInputsDoNotPanic runs every entry point over degenerate inputs:
// the package promises warnings or documented zero/NaN values, never a panic.
func TestEdgeInputsDoNotPanic(t *testing.T) {
	inputs := [][]float64{
		nil, {}, {0}, {math.NaN()}, {math.Inf(1), math.Inf(-1)},
		{1, 1}, {0, 0, 0, 0}, {-5, 5}, {1e308, -1e308}, {math.SmallestNonzeroFloat64, 0},
	}
	for _, xs := range inputs {
		for _, ys := range inputs {
			_ = Summarize(xs)
			_ = Percentiles(xs, -10, 0, 50, 100, 1000, math.NaN())
			_ = NewHistogram(xs, 0)
			_ = NewHistogram(xs, 3)
			_ = Jitter(xs)
			_, _ = LinearFit(xs, ys)
			for _, a := range []float64{math.NaN(), -1, 0, 0.05, 1} {
				c := Compare(xs, ys, a, a, a > 0)
				if c.Verdict != WithinNoise && c.Verdict != Inconclusive {
					t.Errorf("Compare(%v, %v) = %v, want within noise or inconclusive for degenerate input", xs, ys, c.Verdict)
				}
			}
		}
	}
}
