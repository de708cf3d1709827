package stats

import (
	"slices"
	"testing"
)

func TestTukeyOutliers(t *testing.T) {
	// {10..19, 30, 40}: R quantile gives Q1 12.75, Q3 18.25, so IQR 5.5,
	// mild fence 26.5, severe fence 34.75: 30 is mild, 40 severe.
	withHigh := append(seq(10, 19, 1), 30, 40)
	// Mirror image: -40 severe, -30 mild.
	withLow := []float64{-40, -30, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10}
	tests := []struct {
		name   string
		sorted []float64
		q1, q3 float64
		want   Outliers
	}{
		{"one mild one severe high", withHigh, 12.75, 18.25, Outliers{HighMild: []float64{30}, HighSevere: []float64{40}}},
		{"one mild one severe low", withLow, -18.25, -12.75, Outliers{LowSevere: []float64{-40}, LowMild: []float64{-30}}},
		{"none", seq(1, 10, 1), 3.25, 7.75, Outliers{}},
		// Fences for Q1 9, Q3 11: 3 | 6 ... 14 | 17. A value on a fence is not
		// beyond it: 6 and 14 are not outliers, 3 and 17 are only mild.
		{"on fences", []float64{3, 6, 9, 10, 11, 14, 17}, 9, 11, Outliers{LowMild: []float64{3}, HighMild: []float64{17}}},
		{"empty", nil, 0, 0, Outliers{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TukeyOutliers(tt.sorted, tt.q1, tt.q3)
			if !slices.Equal(got.LowSevere, tt.want.LowSevere) || !slices.Equal(got.LowMild, tt.want.LowMild) ||
				!slices.Equal(got.HighMild, tt.want.HighMild) || !slices.Equal(got.HighSevere, tt.want.HighSevere) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if got.Count() != tt.want.Count() {
				t.Errorf("Count = %d, want %d", got.Count(), tt.want.Count())
			}
		})
	}
	if n := (Outliers{LowSevere: []float64{1}, LowMild: []float64{2, 3}, HighMild: []float64{4}, HighSevere: []float64{5, 6}}).Count(); n != 6 {
		t.Errorf("Count = %d, want 6", n)
	}
}
