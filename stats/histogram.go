package stats

import "math"

// maxAutoBins caps the Freedman–Diaconis bin count: beyond ~50 bars a
// terminal or report histogram stops being readable.
const maxAutoBins = 50

// Histogram has len(Counts) equal-width bins; bin i covers
// [Lo+i·Width, Lo+(i+1)·Width), and the last bin also includes its upper
// edge (the maximum). Width is 0 when all values are equal (one bin).
type Histogram struct {
	Lo, Width float64
	Counts    []int
}

// NewHistogram bins the finite values of xs between their min and max.
// bins <= 0 picks the count by the Freedman–Diaconis rule
// (width 2·IQR·n^(-1/3), robust to the long tails latencies have), capped
// at 50; when IQR is 0 it falls back to Sturges' rule (⌈log2 n⌉+1).
// An empty input gives the zero Histogram.
func NewHistogram(xs []float64, bins int) Histogram {
	sorted, _ := sortedFinite(xs)
	n := len(sorted)
	if n == 0 {
		return Histogram{}
	}
	lo, hi := sorted[0], sorted[n-1]
	if hi == lo {
		return Histogram{Lo: lo, Counts: []int{n}}
	}
	if bins <= 0 {
		bins = autoBins(sorted)
	}
	h := Histogram{Lo: lo, Width: (hi - lo) / float64(bins), Counts: make([]int, bins)}
	for _, x := range sorted {
		i := int((x - lo) / h.Width)
		// Clamp: the maximum lands exactly on the upper edge, and
		// rounding can push a value one bin either way.
		i = max(0, min(i, bins-1))
		h.Counts[i]++
	}
	return h
}

// autoBins applies Freedman–Diaconis to an ascending sample with hi > lo.
func autoBins(sorted []float64) int {
	n := len(sorted)
	rng := sorted[n-1] - sorted[0]
	iqr := Quantile(sorted, 0.75) - Quantile(sorted, 0.25)
	var b float64
	if iqr > 0 {
		b = math.Ceil(rng / (2 * iqr * math.Cbrt(1/float64(n))))
	} else {
		b = math.Ceil(math.Log2(float64(n))) + 1
	}
	return int(max(1, min(b, maxAutoBins)))
}

// Bin returns the edges of bin i.
func (h Histogram) Bin(i int) (lo, hi float64) {
	return h.Lo + float64(i)*h.Width, h.Lo + float64(i+1)*h.Width
}

// Total returns the number of values binned.
func (h Histogram) Total() int {
	t := 0
	for _, c := range h.Counts {
		t += c
	}
	return t
}
