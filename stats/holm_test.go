package stats

import (
	"math"
	"testing"
)

// R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") → 0.03 0.06 0.06 0.02.
func TestHolmMatchesR(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("Holm = %v, want %v", got, want)
		}
	}
	if got := Holm([]float64{0.2, math.NaN(), 0.9}); got[0] != 0.4 || !math.IsNaN(got[1]) || got[2] != 0.9 {
		t.Errorf("with a NaN: %v, want [0.4 NaN 0.9]", got)
	}
	if got := Holm([]float64{0.7}); got[0] != 0.7 {
		t.Errorf("one test is not adjusted: %v", got)
	}
}
