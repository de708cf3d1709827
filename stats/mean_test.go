package stats

import (
	"math"
	"testing"
)

func TestMean(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{-1, 1}, 0},
		{[]float64{1, 2, 3, 4}, 2.5},
		{[]float64{math.MaxFloat64, math.MaxFloat64}, math.MaxFloat64}, // the sum overflows
	} {
		if got := Mean(c.xs); got != c.want {
			t.Errorf("Mean(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}
