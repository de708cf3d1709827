package stats

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	type want struct {
		n                                 int
		mean, sd, se, err                 float64
		min, q1, median, q3, max, iqr, cv float64
		outliers                          int
		warn                              string // substring of some warning; "" = no warnings
	}
	tests := []struct {
		name string
		xs   []float64
		want want
	}{
		// 1..10: sd = sqrt(82.5/9); Error = qt(0.9995, 9) · sd/sqrt(10) =
		// 4.780913 · 0.9574271 (R); quartiles from R quantile() (type 7).
		{"1..10", []float64{3, 1, 10, 2, 9, 4, 8, 5, 7, 6}, want{
			n: 10, mean: 5.5, sd: 3.0276504, se: 0.9574271, err: 4.5773757,
			min: 1, q1: 3.25, median: 5.5, q3: 7.75, max: 10, iqr: 4.5, cv: 0.5504819,
		}},
		// sd = sqrt(2), se = 1, so Error = qt(0.9995, 1) = 636.6192 (R):
		// computed, but flagged as useless.
		{"N=2 warns", []float64{1, 3}, want{
			n: 2, mean: 2, sd: math.Sqrt2, se: 1, err: 636.6192,
			min: 1, q1: 1.5, median: 2, q3: 2.5, max: 3, iqr: 1, cv: math.Sqrt2 / 2,
			warn: "N=2: too few samples",
		}},
		{"N=1", []float64{4.2}, want{
			n: 1, mean: 4.2, min: 4.2, q1: 4.2, median: 4.2, q3: 4.2, max: 4.2,
			warn: "N=1: too few samples for a confidence interval",
		}},
		{"empty", nil, want{warn: "N=0"}},
		{"only NaN", []float64{math.NaN()}, want{warn: "dropped 1 non-finite"}},
		{"zero mean gives CV 0", []float64{-1, 1, -1, 1, 0}, want{
			n: 5, mean: 0, sd: 1, se: 1 / math.Sqrt(5), err: 8.610302 / math.Sqrt(5), // R qt(0.9995, 4)
			min: -1, q1: -1, median: 0, q3: 1, max: 1, iqr: 2, cv: 0,
		}},
		// {10..19, 30, 40}: one mild and one severe high outlier (see
		// TestTukeyOutliers); they are reported, not removed.
		{"outliers", append(seq(10, 19, 1), 30, 40), want{
			n: 12, mean: 215.0 / 12, sd: 8.7017066, se: 2.5119663, err: math.NaN(), // R sd(x)
			min: 10, q1: 12.75, median: 15.5, q3: 18.25, max: 40, iqr: 5.5, cv: 0.4856766, outliers: 2,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := slices.Clone(tt.xs)
			s := Summarize(tt.xs)
			if !sameFloats(tt.xs, orig) {
				t.Errorf("Summarize modified its input")
			}
			w := tt.want
			if s.N != w.n {
				t.Errorf("N = %d, want %d", s.N, w.n)
			}
			const tol = 1e-5
			for _, c := range []struct {
				name      string
				got, want float64
			}{
				{"Mean", s.Mean, w.mean}, {"StdDev", s.StdDev, w.sd}, {"StdErr", s.StdErr, w.se},
				{"Error", s.Error, w.err}, {"CILower", s.CILower, w.mean - w.err}, {"CIUpper", s.CIUpper, w.mean + w.err},
				{"Min", s.Min, w.min}, {"Q1", s.Q1, w.q1}, {"Median", s.Median, w.median},
				{"Q3", s.Q3, w.q3}, {"Max", s.Max, w.max}, {"IQR", s.IQR, w.iqr}, {"CV", s.CV, w.cv},
			} {
				if math.IsNaN(c.want) {
					continue // not pinned by this case
				}
				checkFloat(t, c.name, c.got, c.want, tol*math.Max(1, math.Abs(c.want)))
			}
			if s.Outliers.Count() != w.outliers {
				t.Errorf("outliers = %+v, want %d", s.Outliers, w.outliers)
			}
			joined := strings.Join(s.Warnings, "; ")
			if w.warn == "" && len(s.Warnings) > 0 {
				t.Errorf("unexpected warnings: %q", joined)
			}
			if w.warn != "" && !strings.Contains(joined, w.warn) {
				t.Errorf("warnings %q do not mention %q", joined, w.warn)
			}
		})
	}
}

func TestSummarizeOutliers(t *testing.T) {
	// One mild (30) and one severe (40) high outlier; see TestTukeyOutliers.
	o := Summarize([]float64{30, 10, 11, 12, 40, 13, 14, 15, 16, 17, 18, 19}).Outliers
	if !slices.Equal(o.HighMild, []float64{30}) || !slices.Equal(o.HighSevere, []float64{40}) ||
		len(o.LowMild)+len(o.LowSevere) != 0 {
		t.Errorf("Outliers = %+v, want HighMild [30], HighSevere [40]", o)
	}
}

func TestSummaryStability(t *testing.T) {
	if got := Summarize([]float64{100, 101, 99, 100}).Stability(); got != Stable {
		t.Errorf("Stability = %v, want stable", got)
	}
	if got := Summarize(seq(1, 10, 1)).Stability(); got != Unstable {
		t.Errorf("Stability = %v, want unstable", got)
	}
}

func TestSummarizeHugeValues(t *testing.T) {
	// The naive sum would overflow to +Inf.
	s := Summarize([]float64{math.MaxFloat64, math.MaxFloat64})
	if s.Mean != math.MaxFloat64 || s.StdDev != 0 {
		t.Errorf("Mean, StdDev = %g, %g; want MaxFloat64, 0", s.Mean, s.StdDev)
	}
}
