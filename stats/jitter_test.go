package stats

import "testing"

func TestJitter(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want float64
	}{
		{"empty", nil, 0},
		{"single", []float64{5}, 0},
		{"steps", []float64{1, 3, 2, 5}, 2}, // (2+1+3)/3
		{"constant", []float64{4, 4, 4}, 0},
		// Same values, different order: jitter follows the given order.
		{"monotone", []float64{1, 2, 3, 4}, 1},
		{"zigzag", []float64{1, 4, 2, 3}, 2}, // (3+2+1)/3
	}
	for _, tt := range tests {
		checkFloat(t, tt.name, Jitter(tt.xs), tt.want, 1e-12)
	}
}
