package stats

import "errors"

// Fit is a least-squares line y = Slope·x + Intercept, e.g. latency
// against payment size or throughput against channel count.
type Fit struct {
	Slope, Intercept, R2 float64
	N                    int
}

// Errors returned by LinearFit.
var (
	ErrLengthMismatch = errors.New("stats: x and y have different lengths")
	ErrNonFinite      = errors.New("stats: non-finite value in x or y")
	ErrTooFewX        = errors.New("stats: fewer than 2 distinct x values")
)

// LinearFit fits y = Slope·x + Intercept by ordinary least squares.
// R2 is the coefficient of determination, 1 - SSres/SStot; when all y are
// equal (SStot = 0) the horizontal fit is exact and R2 is 1. It fails when
// the lengths differ, a value is NaN/±Inf, or there are fewer than 2
// distinct x (the slope is then undefined).
func LinearFit(x, y []float64) (Fit, error) {
	if len(x) != len(y) {
		return Fit{}, ErrLengthMismatch
	}
	n := len(x)
	for i := range n {
		if !finite(x[i]) || !finite(y[i]) {
			return Fit{}, ErrNonFinite
		}
	}
	if n < 2 {
		return Fit{}, ErrTooFewX
	}
	mx, my := Mean(x), Mean(y)
	// Centered sums: stable when x is e.g. a unix timestamp.
	var sxx, sxy, syy float64
	for i := range n {
		dx, dy := x[i]-mx, y[i]-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if sxx == 0 {
		return Fit{}, ErrTooFewX
	}
	f := Fit{N: n, Slope: sxy / sxx}
	f.Intercept = my - f.Slope*mx
	var ssres float64
	for i := range n {
		r := y[i] - (f.Slope*x[i] + f.Intercept)
		ssres += r * r
	}
	f.R2 = 1
	if syy > 0 {
		f.R2 = 1 - ssres/syy
	}
	return f, nil
}
