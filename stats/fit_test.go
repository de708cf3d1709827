package stats

import (
	"errors"
	"math"
	"testing"
)

func TestLinearFit(t *testing.T) {
	tests := []struct {
		name    string
		x, y    []float64
		want    Fit
		wantErr error
	}{
		{"exact line y=2x+1", []float64{0, 1, 2, 3}, []float64{1, 3, 5, 7}, Fit{Slope: 2, Intercept: 1, R2: 1, N: 4}, nil},
		{"exact descending", []float64{-1, 0, 1}, []float64{3, 0, -3}, Fit{Slope: -3, Intercept: 0, R2: 1, N: 3}, nil},
		// Textbook example; R: lm(y ~ x) gives 2.2 + 0.6x, R² 0.6
		// (SSres 2.4, SStot 6).
		{"noisy", []float64{1, 2, 3, 4, 5}, []float64{2, 4, 5, 4, 5}, Fit{Slope: 0.6, Intercept: 2.2, R2: 0.6, N: 5}, nil},
		// Large offset in x: centered sums keep it exact.
		{"offset x", []float64{1e9, 1e9 + 1, 1e9 + 2}, []float64{5, 6, 7}, Fit{Slope: 1, Intercept: 5 - 1e9, R2: 1, N: 3}, nil},
		{"flat y", []float64{1, 2, 3}, []float64{4, 4, 4}, Fit{Slope: 0, Intercept: 4, R2: 1, N: 3}, nil},
		{"one distinct x", []float64{2, 2, 2}, []float64{1, 2, 3}, Fit{}, ErrTooFewX},
		{"single point", []float64{1}, []float64{1}, Fit{}, ErrTooFewX},
		{"empty", nil, nil, Fit{}, ErrTooFewX},
		{"length mismatch", []float64{1, 2}, []float64{1}, Fit{}, ErrLengthMismatch},
		{"NaN", []float64{1, 2, math.NaN()}, []float64{1, 2, 3}, Fit{}, ErrNonFinite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LinearFit(tt.x, tt.y)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			checkFloat(t, "Slope", got.Slope, tt.want.Slope, 1e-9)
			checkFloat(t, "Intercept", got.Intercept, tt.want.Intercept, 1e-6)
			checkFloat(t, "R2", got.R2, tt.want.R2, 1e-9)
			if got.N != tt.want.N {
				t.Errorf("N = %d, want %d", got.N, tt.want.N)
			}
		})
	}
}
