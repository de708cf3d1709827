package stats

import (
	"math"
	"testing"
)

func TestStudentTQuantile(t *testing.T) {
	// Reference values: R qt(p, df), printed to 7 significant digits.
	tests := []struct {
		p, df, want float64
	}{
		{0.9995, 9, 4.780913},
		{0.9995, 4, 8.610302},
		{0.9995, 1, 636.6192},
		{0.975, 1, 12.70620},
		{0.975, 10, 2.228139},
		{0.995, 30, 2.749996},
		{0.025, 5, -2.570582},
		{0.5, 3, 0},
		{1, 5, math.Inf(1)},
		{-0.1, 5, math.NaN()},
		{1.1, 5, math.NaN()},
		{0.9, 0, math.NaN()},
		{math.NaN(), 5, math.NaN()},
	}
	for _, tt := range tests {
		got := StudentTQuantile(tt.p, tt.df)
		// Relative tolerance: the references carry 7 significant digits.
		tol := 1e-6 * math.Max(1, math.Abs(tt.want))
		if !close(got, tt.want, tol) {
			t.Errorf("StudentTQuantile(%v, %v) = %.8g, want %.8g", tt.p, tt.df, got, tt.want)
		}
	}
}
