// Package changepoint finds the points where a series of benchmark results
// shifts: E-divisive means (Matteson and James, 2014, the method Apache
// Otava and MongoDB's signal processing use), hierarchical: the split that
// maximises the energy divergence between the two sides is tested, and
// when it holds, each side is searched again.
//
// Significance is a permutation test of the maximal statistic, as in the
// original method (Otava tests with Student's t instead, which ignores
// that the split was chosen as the most different one and so calls
// changes too often): under no change, every order of the points is as
// likely, so the share of permutations whose maximal statistic reaches the
// observed one is an exact p-value. On a series with no change, the first
// test is the only one, so the chance of any change point is at most
// Alpha. Each accepted change point's later tests are Bonferroni-bounded
// by the number of segments tested (Result.Tests).
package changepoint

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Options steer the search; the zero value takes the defaults.
type Options struct {
	// Alpha is the significance level of each test (default 0.05). A
	// permutation test of n points cannot go below about 2/C(n, n/2): for
	// 8 runs that is 0.029, so a stricter level would never fire there.
	Alpha float64
	// MinSize is the fewest points a segment may hold (default 3): a
	// change is only seen with points on both sides.
	MinSize int
	// Permutations per test (default 999).
	Permutations int
	// MinShift is the smallest relative change of the mean worth a change
	// point (default 0.02), like criterion's noise threshold.
	MinShift float64
	// Seed makes the permutations repeatable (default 1).
	Seed uint64
}

func (o Options) withDefaults() Options {
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if o.MinSize == 0 {
		o.MinSize = 3
	}
	if o.Permutations == 0 {
		o.Permutations = 999
	}
	if o.MinShift == 0 {
		o.MinShift = 0.02
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	return o
}

// Point is one change: the series differs from Index on (the first point
// of the new level).
type Point struct {
	Index  int     `json:"index"`
	P      float64 `json:"p"`
	Before float64 `json:"before"` // mean of the segment before
	After  float64 `json:"after"`  // mean of the segment after
	Shift  float64 `json:"shift"`  // After/Before - 1
}

// Result is every change point, in order, and how many tests were run.
type Result struct {
	Points []Point `json:"points"`
	Tests  int     `json:"tests"`
	Alpha  float64 `json:"alpha"`
}

// Detect finds the change points of xs.
func Detect(xs []float64, opts Options) Result {
	o := opts.withDefaults()
	d := detector{o: o, rng: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))}
	res := Result{Alpha: o.Alpha}
	d.split(xs, 0, len(xs), &res)
	sort.Slice(res.Points, func(i, j int) bool { return res.Points[i].Index < res.Points[j].Index })
	// Each change's levels are its neighbouring final segments' means.
	for i := range res.Points {
		lo, hi := 0, len(xs)
		if i > 0 {
			lo = res.Points[i-1].Index
		}
		if i+1 < len(res.Points) {
			hi = res.Points[i+1].Index
		}
		p := &res.Points[i]
		p.Before, p.After = mean(xs[lo:p.Index]), mean(xs[p.Index:hi])
		p.Shift = p.After/p.Before - 1
	}
	return res
}

type detector struct {
	o   Options
	rng *rand.Rand
}

// split tests xs[lo:hi] and recurses on both sides of an accepted change.
func (d *detector) split(xs []float64, lo, hi int, res *Result) {
	seg := xs[lo:hi]
	if len(seg) < 2*d.o.MinSize {
		return
	}
	tau, stat := best(seg, d.o.MinSize)
	res.Tests++
	// The permutation test: how often a random order's best split is at
	// least as divergent as the observed one.
	perm := append([]float64(nil), seg...)
	reach := 0
	for i := 0; i < d.o.Permutations; i++ {
		d.rng.Shuffle(len(perm), func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
		if _, s := best(perm, d.o.MinSize); s >= stat {
			reach++
		}
	}
	p := float64(reach+1) / float64(d.o.Permutations+1)
	before, after := mean(seg[:tau]), mean(seg[tau:])
	shift := after/before - 1
	if p >= d.o.Alpha || math.Abs(shift) < d.o.MinShift {
		return
	}
	res.Points = append(res.Points, Point{Index: lo + tau, P: p, Before: before, After: after, Shift: shift})
	d.split(xs, lo, lo+tau, res)
	d.split(xs, lo+tau, hi, res)
}

// best is the split τ of seg (each side at least min points) with the
// largest energy divergence between seg[:τ] and seg[τ:κ] over every κ,
// and that divergence (Matteson and James's E-divisive statistic, α = 1):
//
//	Q(τ,κ) = m·n/(m+n) · (2/(mn) Σ|x−y| − 1/C(m,2) Σ|x−x'| − 1/C(n,2) Σ|y−y'|)
//
// with m = τ and n = κ−τ. Letting the right side end before the series
// does is what finds a level that leaves and comes back. Row prefix sums
// of the distances make it O(len²).
func best(seg []float64, min int) (int, float64) {
	n := len(seg)
	// pre[i][j] = Σ_{k<j} |seg[i]-seg[k]|
	pre := make([][]float64, n)
	for i := range pre {
		pre[i] = make([]float64, n+1)
		for j := 0; j < n; j++ {
			pre[i][j+1] = pre[i][j] + math.Abs(seg[i]-seg[j])
		}
	}
	bestTau, bestQ := min, math.Inf(-1)
	left := 0.0 // Σ_{i<j<τ} |x_i − x_j|
	for tau := 1; tau <= n-min; tau++ {
		left += pre[tau-1][tau-1]
		if tau < min {
			continue
		}
		between, right := 0.0, 0.0
		for kappa := tau + 1; kappa <= n; kappa++ {
			y := kappa - 1 // the point joining the right side
			between += pre[y][tau]
			right += pre[y][y] - pre[y][tau]
			k := float64(kappa - tau)
			if kappa-tau < min {
				continue
			}
			m := float64(tau)
			e := 2 * between / (m * k)
			if m > 1 {
				e -= left / (m * (m - 1) / 2)
			}
			if k > 1 {
				e -= right / (k * (k - 1) / 2)
			}
			if q := m * k / (m + k) * e; q > bestQ {
				bestTau, bestQ = tau, q
			}
		}
	}
	return bestTau, bestQ
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
