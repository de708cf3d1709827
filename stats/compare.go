package stats

import (
	"fmt"
	"math"
	"strings"

	"golang.org/x/perf/benchmath"
)

// Verdict is the outcome of Compare.
type Verdict int

const (
	Inconclusive Verdict = iota // not enough data to tell (zero value: safest default)
	Improved
	Regressed
	WithinNoise // not significant, or significant but smaller than the noise threshold
)

func (v Verdict) String() string {
	switch v {
	case Improved:
		return "improved"
	case Regressed:
		return "regressed"
	case WithinNoise:
		return "within noise"
	case Inconclusive:
		return "inconclusive"
	}
	return "unknown"
}

// Defaults used by Compare when given an out-of-range alpha or
// noiseThreshold; they are criterion.rs's defaults.
const (
	DefaultAlpha          = 0.05
	DefaultNoiseThreshold = 0.01
)

// Comparison is the result of Compare.
type Comparison struct {
	BaseMedian, NewMedian float64
	Change                float64 // (new-base)/|base| of the medians, so the sign says whether new is larger; 0 when base median is 0
	P                     float64 // two-sided Mann-Whitney U p-value; 1 when not computable
	Alpha, NoiseThreshold float64 // as actually used
	Verdict               Verdict
	// TooFewSamples is set when the sample sizes cannot reach p < alpha
	// whatever the data (3 vs 3 at 0.05): Change is still the real change,
	// but it cannot be significant.
	TooFewSamples bool
	Warnings      []string
}

// Compare tells whether new differs from base, criterion-style: a change is
// reported as improved/regressed only when it is both significant
// (Mann-Whitney U test p < alpha, via golang.org/x/perf/benchmath) AND
// larger in magnitude than noiseThreshold (relative change of the median).
// lowerIsBetter says which direction is improved (true for latencies,
// false for throughput).
//
// Neither slice is modified. Non-finite values are dropped with a warning.
// alpha outside (0,1) means DefaultAlpha; a negative or NaN noiseThreshold
// means DefaultNoiseThreshold. When the sample sizes are too small for the
// U test to ever reach p < alpha (e.g. 3 vs 3 at alpha 0.05), or a sample
// is empty, or the base median is 0, the verdict is Inconclusive with a
// warning; Change is still the change of the medians when they are known.
func Compare(base, new []float64, alpha, noiseThreshold float64, lowerIsBetter bool) Comparison {
	if !(alpha > 0 && alpha < 1) {
		alpha = DefaultAlpha
	}
	if !(noiseThreshold >= 0) || math.IsInf(noiseThreshold, 0) {
		noiseThreshold = DefaultNoiseThreshold
	}
	c := Comparison{P: 1, Alpha: alpha, NoiseThreshold: noiseThreshold, Verdict: Inconclusive}

	b, db := sortedFinite(base)
	nw, dn := sortedFinite(new)
	if db+dn > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("dropped %d non-finite value(s)", db+dn))
	}
	if len(b) == 0 || len(nw) == 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("n=%d+%d: empty sample, nothing to compare", len(b), len(nw)))
		return c
	}
	c.BaseMedian, c.NewMedian = Quantile(b, 0.5), Quantile(nw, 0.5)

	// benchmath sorts in place; b and nw are already private copies.
	thr := benchmath.Thresholds{CompareAlpha: alpha}
	res := benchmath.AssumeNothing.Compare(benchmath.NewSample(b, &thr), benchmath.NewSample(nw, &thr))
	c.P = res.P

	tooFew := minUTestP(len(b), len(nw)) >= alpha
	for _, w := range res.Warnings {
		// benchmath's own "need >= N samples" note is replaced by ours below.
		if tooFew && strings.HasPrefix(w.Error(), "need ") {
			continue
		}
		c.Warnings = append(c.Warnings, w.Error())
	}
	if c.BaseMedian != 0 {
		c.Change = (c.NewMedian - c.BaseMedian) / math.Abs(c.BaseMedian)
	}
	if tooFew {
		c.TooFewSamples = true
		c.Warnings = append(c.Warnings, fmt.Sprintf(
			"n=%d+%d: too few samples for significance at alpha=%g (need >= %d per sample)",
			len(b), len(nw), alpha, uTestSamplesNeeded(alpha)))
		return c
	}
	if c.BaseMedian == 0 && c.NewMedian != 0 {
		c.Warnings = append(c.Warnings, "base median is 0: relative change undefined")
		return c
	}

	switch {
	case c.P >= alpha || math.Abs(c.Change) <= noiseThreshold:
		c.Verdict = WithinNoise
	case (c.Change < 0) == lowerIsBetter:
		c.Verdict = Improved
	default:
		c.Verdict = Regressed
	}
	return c
}

// minUTestP is the smallest two-sided p-value the exact Mann-Whitney U test
// can produce for sizes n1, n2: complete separation has probability
// 1/C(n1+n2, n1) per tail. Computed in log space to avoid overflow.
func minUTestP(n1, n2 int) float64 {
	lc, _ := math.Lgamma(float64(n1 + n2 + 1))
	l1, _ := math.Lgamma(float64(n1 + 1))
	l2, _ := math.Lgamma(float64(n2 + 1))
	return math.Min(1, 2*math.Exp(-(lc-l1-l2)))
}

// uTestSamplesNeeded is the smallest equal per-sample size at which the U
// test can reach p < alpha.
func uTestSamplesNeeded(alpha float64) int {
	n := 1
	for minUTestP(n, n) >= alpha && n < 1000 {
		n++
	}
	return n
}
