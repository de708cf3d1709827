package stats

import (
	"math"
	"slices"
	"testing"
)

func TestQuantile(t *testing.T) {
	oneToTen := seq(1, 10, 1)
	// Reference values: R quantile(x, p) (type 7), cross-checked with
	// Python statistics.quantiles(method="inclusive"), which is type 7.
	tests := []struct {
		name   string
		sorted []float64
		p      float64
		want   float64
	}{
		{"1..10 min", oneToTen, 0, 1},
		{"1..10 Q1", oneToTen, 0.25, 3.25},
		{"1..10 median", oneToTen, 0.5, 5.5},
		{"1..10 Q3", oneToTen, 0.75, 7.75},
		{"1..10 max", oneToTen, 1, 10},
		{"1..10 p90", oneToTen, 0.9, 9.1},
		{"odd n median", []float64{1, 2, 4}, 0.5, 2},
		{"two values", []float64{10, 20}, 0.3, 13},
		{"single", []float64{7}, 0.99, 7},
		{"p clamped low", oneToTen, -1, 1},
		{"p clamped high", oneToTen, 2, 10},
		{"empty", nil, 0.5, math.NaN()},
		{"NaN p", oneToTen, math.NaN(), math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkFloat(t, "Quantile", Quantile(tt.sorted, tt.p), tt.want, 1e-12)
		})
	}
}

func TestPercentiles(t *testing.T) {
	// Unsorted on purpose. Reference: R quantile(x, c(.5,.9,.99)) on
	// c(0.5,1.7,2.0,3.1,4.4,6.0,7.3,9.9) = 3.75, 8.08, 9.718.
	x := []float64{9.9, 0.5, 4.4, 2.0, 7.3, 1.7, 6.0, 3.1}
	orig := slices.Clone(x)
	tests := []struct {
		name string
		xs   []float64
		ps   []float64
		want []float64
	}{
		{"latencies", x, []float64{50, 90, 99}, []float64{3.75, 8.08, 9.718}},
		{"extremes", x, []float64{0, 100}, []float64{0.5, 9.9}},
		{"non-finite ignored", []float64{math.NaN(), 3, math.Inf(1), 1, 2}, []float64{50}, []float64{2}},
		{"no ps", x, nil, []float64{}},
		{"empty", nil, []float64{50, 99}, []float64{math.NaN(), math.NaN()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Percentiles(tt.xs, tt.ps...)
			if len(got) != len(tt.want) {
				t.Fatalf("len = %d, want %d", len(got), len(tt.want))
			}
			for i := range got {
				checkFloat(t, "p", got[i], tt.want[i], 1e-12)
			}
		})
	}
	if !slices.Equal(x, orig) {
		t.Errorf("Percentiles modified its input: %v", x)
	}
}
