package stats

import (
	"math"
	"slices"
	"testing"
)

// close reports whether got is within tol of want (absolute), treating two
// NaNs as equal so "NaN expected" cases can be tabled too.
func close(got, want, tol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= tol
}

func checkFloat(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if !close(got, want, tol) {
		t.Errorf("%s = %.10g, want %.10g (±%g)", name, got, want, tol)
	}
}

func seq(lo, hi, step float64) []float64 {
	var xs []float64
	for x := lo; x <= hi+step/2; x += step {
		xs = append(xs, x)
	}
	return xs
}

// sameFloats is slices.Equal with NaN equal to NaN, to check that inputs
// containing NaN were not modified.
func sameFloats(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })
}
