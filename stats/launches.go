package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// DefaultPower is the chance a change as large as the minimum detectable
// effect is called significant: the usual 80%.
const DefaultPower = 0.8

// RatioTest compares two sets of independent units (launch means, or
// iterations when there is one launch per side) on the log scale:
//
//   - paired (one unit per side per round, as ABBA or shuffled rounds
//     give): a one-sample t test of the per-round log ratios, which cancels
//     the drift the two launches of a round share;
//   - unpaired: Welch's t test of the two sides' log values.
//
// Why a t test and not a bootstrap: with 3–10 launches per side a bootstrap
// has only a few dozen distinct resamples and its interval is too narrow
// (it undercovers at small n); the t interval is exact for normal log
// means, and launch means are averages of ~10 iterations, so close to
// normal. Logs make the ratio's interval symmetric in "× faster" and
// "× slower" and the launch spread relative, as it is measured (3–10%).
type RatioTest struct {
	Ratio     float64 // exp(mean log ratio): new over base
	Low, High float64 // 1-alpha confidence interval of Ratio
	P         float64 // two-sided
	NBase     int     // units per side (launches, or iterations)
	NNew      int
	Paired    bool
	DF        float64
	// SE is the standard error of the mean log ratio; SD the spread of
	// one unit's log ratio (paired) or of one unit's log value (unpaired,
	// pooled), which sizes MDE and Suggest.
	SE, SD float64
	Alpha  float64
	// MDE is the smallest relative change detected with DefaultPower at
	// Alpha with these units (NaN when the spread is unknown).
	MDE      float64
	Warnings []string
}

// TestRatio compares new with base. With paired set, base[i] and new[i]
// are one round's two units and the slices must be the same length.
// Values must be positive (times); others are dropped with a warning, and
// pairing is dropped with them. Fewer than 2 units on a side (or 2 pairs)
// gives P 1, an interval of NaN and a warning.
func TestRatio(base, new []float64, paired bool, alpha float64) RatioTest {
	if !(alpha > 0 && alpha < 1) {
		alpha = DefaultAlpha
	}
	t := RatioTest{P: 1, Alpha: alpha, Low: math.NaN(), High: math.NaN(), MDE: math.NaN(), SD: math.NaN(), SE: math.NaN()}
	if paired && len(base) != len(new) {
		paired = false
		t.Warnings = append(t.Warnings, fmt.Sprintf("%d vs %d units: compared unpaired", len(base), len(new)))
	}
	lb, ln, dropped := logs(base, new, paired)
	if dropped > 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("dropped %d non-positive or non-finite value(s)", dropped))
	}
	t.NBase, t.NNew, t.Paired = len(lb), len(ln), paired
	if len(lb) == 0 || len(ln) == 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("n=%d+%d: empty sample, nothing to compare", len(lb), len(ln)))
		return t
	}
	var d float64 // mean log ratio
	if paired {
		diffs := make([]float64, len(lb))
		for i := range lb {
			diffs[i] = ln[i] - lb[i]
		}
		d = stat.Mean(diffs, nil)
		if len(diffs) >= 2 {
			t.SD = stat.StdDev(diffs, nil)
			t.SE = t.SD / math.Sqrt(float64(len(diffs)))
			t.DF = float64(len(diffs) - 1)
		}
	} else {
		mb, vb := stat.MeanVariance(lb, nil)
		mn, vn := stat.MeanVariance(ln, nil)
		d = mn - mb
		if len(lb) >= 2 && len(ln) >= 2 {
			sb, sn := vb/float64(len(lb)), vn/float64(len(ln))
			t.SE = math.Sqrt(sb + sn)
			t.DF = welchDF(sb, sn, len(lb), len(ln))
			t.SD = math.Sqrt(((float64(len(lb))-1)*vb + (float64(len(ln))-1)*vn) / float64(len(lb)+len(ln)-2))
		}
	}
	t.Ratio = math.Exp(d)
	if math.IsNaN(t.SE) {
		t.Warnings = append(t.Warnings, fmt.Sprintf("n=%d+%d: need 2 units per side for an interval", t.NBase, t.NNew))
		return t
	}
	if t.SE == 0 || t.DF <= 0 || math.IsNaN(t.DF) {
		// Identical values: no spread to test against; an exact tie is no
		// change, any difference is as sure as data can be.
		t.Low, t.High, t.MDE = t.Ratio, t.Ratio, 0
		if d != 0 {
			t.P = 0
		}
		return t
	}
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: t.DF}
	q := st.Quantile(1 - alpha/2)
	t.Low, t.High = math.Exp(d-q*t.SE), math.Exp(d+q*t.SE)
	t.P = 2 * st.CDF(-math.Abs(d)/t.SE)
	t.MDE = mdeOf(t.SE, t.DF, alpha, DefaultPower)
	return t
}

// logs returns the logs of the positive finite values; paired, a round is
// dropped when either of its values is.
func logs(base, new []float64, paired bool) (lb, ln []float64, dropped int) {
	ok := func(v float64) bool { return v > 0 && !math.IsInf(v, 0) }
	if paired {
		for i := range base {
			if ok(base[i]) && ok(new[i]) {
				lb, ln = append(lb, math.Log(base[i])), append(ln, math.Log(new[i]))
			} else {
				dropped++
			}
		}
		return lb, ln, dropped
	}
	for _, v := range base {
		if ok(v) {
			lb = append(lb, math.Log(v))
		} else {
			dropped++
		}
	}
	for _, v := range new {
		if ok(v) {
			ln = append(ln, math.Log(v))
		} else {
			dropped++
		}
	}
	return lb, ln, dropped
}

// welchDF is the Welch–Satterthwaite degrees of freedom of s1 + s2, the
// squared standard errors of two means of sizes n1 and n2.
func welchDF(s1, s2 float64, n1, n2 int) float64 {
	den := s1*s1/float64(n1-1) + s2*s2/float64(n2-1)
	if den == 0 {
		return float64(n1 + n2 - 2)
	}
	return (s1 + s2) * (s1 + s2) / den
}

// mdeOf is the minimum detectable effect of a two-sided t test at alpha
// with the given power: (t_{1-α/2,df} + t_{power,df}) · SE on the log
// scale, returned as a relative change (exp(·) - 1).
func mdeOf(se, df, alpha, power float64) float64 {
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	return math.Expm1((st.Quantile(1-alpha/2) + st.Quantile(power)) * se)
}

// MDE is the minimum detectable relative effect of n units per side whose
// spread is sd (log scale): of a paired test (sd of one round's log ratio,
// n-1 df) or an unpaired one (sd of one unit, equal sizes, 2n-2 df). NaN
// when n is too small for a test.
func MDE(sd float64, n int, paired bool, alpha, power float64) float64 {
	if n < 2 || !(sd >= 0) {
		return math.NaN()
	}
	if paired {
		return mdeOf(sd/math.Sqrt(float64(n)), float64(n-1), alpha, power)
	}
	return mdeOf(sd*math.Sqrt(2/float64(n)), float64(2*n-2), alpha, power)
}

// Suggest is the smallest number of units per side (at least 2) whose MDE
// is at most effect (relative, e.g. 0.03), capped at max; ok is false when
// even max is not enough or the spread is unknown.
func Suggest(effect, sd float64, paired bool, alpha, power float64, max int) (n int, ok bool) {
	if !(effect > 0) || !(sd >= 0) || math.IsInf(sd, 0) {
		return 0, false
	}
	for n = 2; n <= max; n++ {
		if MDE(sd, n, paired, alpha, power) <= effect {
			return n, true
		}
	}
	return max, false
}

// Outcome is the three-way verdict of a RatioTest (plus "not yet known").
type Outcome int

const (
	NotYetKnown Outcome = iota // neither a change nor its absence is shown: the zero value
	Lower                      // new is lower than base: significant and beyond the noise threshold
	Higher                     // new is higher than base, likewise
	Same                       // the interval excludes any change larger than the margin
)

func (o Outcome) String() string {
	switch o {
	case Lower:
		return "lower"
	case Higher:
		return "higher"
	case Same:
		return "same"
	}
	return "not yet known"
}

// Decide reads a RatioTest: Lower or Higher when p < alpha and the ratio
// moved more than noise (relative); Same when the whole interval lies
// within ±margin of 1 (an equivalence test: no change larger than margin);
// NotYetKnown otherwise, which more units can settle.
func Decide(t RatioTest, noise, margin float64) Outcome {
	if t.P < t.Alpha && math.Abs(t.Ratio-1) > noise {
		if t.Ratio < 1 {
			return Lower
		}
		return Higher
	}
	if !math.IsNaN(t.Low) && t.Low >= 1/(1+margin) && t.High <= 1+margin {
		return Same
	}
	return NotYetKnown
}

// Excluded is the largest relative change the interval leaves open: the
// data say "no change larger than Excluded" (NaN without an interval).
func (t RatioTest) Excluded() float64 {
	if math.IsNaN(t.Low) {
		return math.NaN()
	}
	return math.Max(t.High-1, 1/t.Low-1)
}
