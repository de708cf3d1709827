package stats

import (
	"math"
	"slices"
	"testing"
)

func TestNewHistogram(t *testing.T) {
	// 200000 evenly spread values in [0,1): IQR 0.5, so Freedman–Diaconis
	// asks for ⌈1/(2·0.5·200000^(-1/3))⌉ = 59 bins, capped to 50.
	many := make([]float64, 200000)
	for i := range many {
		many[i] = float64(i) / float64(len(many))
	}
	tests := []struct {
		name   string
		xs     []float64
		bins   int
		lo, w  float64
		counts []int
	}{
		// 0..9 into 5 bins of 1.8: two values per bin, 9 in the last.
		{"explicit bins", seq(0, 9, 1), 5, 0, 1.8, []int{2, 2, 2, 2, 2}},
		// 1..10: IQR 4.5, FD width 9·10^(-1/3) = 4.177, ⌈9/4.177⌉ = 3 bins of 3.
		{"freedman-diaconis", []float64{10, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 0, 1, 3, []int{3, 3, 4}},
		// IQR 0 (most values equal): Sturges, ⌈log2 6⌉+1 = 4 bins over [1,5].
		{"sturges fallback", []float64{1, 3, 3, 3, 3, 5}, 0, 1, 1, []int{1, 0, 4, 1}},
		{"all equal", []float64{2, 2, 2}, 0, 2, 0, []int{3}},
		{"single", []float64{7}, 10, 7, 0, []int{1}},
		{"empty", nil, 0, 0, 0, nil},
		{"non-finite ignored", []float64{math.NaN(), 0, 1, math.Inf(-1)}, 2, 0, 0.5, []int{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := NewHistogram(tt.xs, tt.bins)
			checkFloat(t, "Lo", h.Lo, tt.lo, 1e-12)
			checkFloat(t, "Width", h.Width, tt.w, 1e-12)
			if !slices.Equal(h.Counts, tt.counts) {
				t.Errorf("Counts = %v, want %v", h.Counts, tt.counts)
			}
		})
	}
	t.Run("cap", func(t *testing.T) {
		h := NewHistogram(many, 0)
		if len(h.Counts) != maxAutoBins || h.Total() != len(many) {
			t.Errorf("bins = %d total = %d, want %d bins holding %d", len(h.Counts), h.Total(), maxAutoBins, len(many))
		}
	})
}

func TestHistogramBin(t *testing.T) {
	h := Histogram{Lo: 1, Width: 0.5, Counts: []int{1, 2, 3}}
	tests := []struct {
		i      int
		lo, hi float64
	}{{0, 1, 1.5}, {2, 2, 2.5}}
	for _, tt := range tests {
		lo, hi := h.Bin(tt.i)
		if lo != tt.lo || hi != tt.hi {
			t.Errorf("Bin(%d) = [%v,%v), want [%v,%v)", tt.i, lo, hi, tt.lo, tt.hi)
		}
	}
	if h.Total() != 6 {
		t.Errorf("Total = %d, want 6", h.Total())
	}
}
