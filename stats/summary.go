package stats

import (
	"fmt"
	"math"
)

// ConfidenceLevel is the level of Summary's confidence interval. 99.9% is
// BenchmarkDotNet's choice for its "Error" column.
const ConfidenceLevel = 0.999

// reliableN is the smallest sample for which Summarize does not warn about
// the interval width: below it t(0.9995, n-1) exceeds 8 (t(0.9995, 4) =
// 8.610302, R: qt(0.9995, 4)), so the interval says little.
const reliableN = 5

// Summary of a sample (e.g. iteration times in seconds, or payment latencies).
type Summary struct {
	N                    int
	Mean, StdDev, StdErr float64 // StdDev is the sample (n-1) standard deviation
	// Error is the half-width of the 99.9% confidence interval of the
	// mean (BenchmarkDotNet's "Error"): t(0.9995, n-1)·StdErr; 0 when N < 2.
	Error                         float64
	CILower, CIUpper              float64 // Mean ∓ Error
	Min, Q1, Median, Q3, Max, IQR float64 // quartiles are R type 7 (see Quantile)
	CV                            float64 // StdDev/Mean; 0 when Mean is 0
	Outliers                      Outliers
	Warnings                      []string
}

// Summarize computes a Summary of xs without modifying it. Non-finite
// values are dropped with a warning. An empty sample gives all-zero fields
// and a warning rather than NaNs, so the value is always safe to render
// or marshal to JSON.
func Summarize(xs []float64) Summary {
	sorted, dropped := sortedFinite(xs)
	var s Summary
	if dropped > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("dropped %d non-finite value(s)", dropped))
	}
	n := len(sorted)
	s.N = n
	if n == 0 {
		s.Warnings = append(s.Warnings, "N=0: empty sample")
		return s
	}

	s.Mean = Mean(sorted)
	if n >= 2 {
		// Two-pass variance: avoids the cancellation of sum-of-squares
		// when values are large relative to their spread (e.g. ns timestamps).
		ss := 0.0
		for _, x := range sorted {
			d := x - s.Mean
			ss += d * d
		}
		s.StdDev = math.Sqrt(ss / float64(n-1))
		s.StdErr = s.StdDev / math.Sqrt(float64(n))
		s.Error = StudentTQuantile(1-(1-ConfidenceLevel)/2, float64(n-1)) * s.StdErr
	}
	switch {
	case n < 2:
		s.Warnings = append(s.Warnings, fmt.Sprintf("N=%d: too few samples for a confidence interval", n))
	case n < reliableN:
		s.Warnings = append(s.Warnings, fmt.Sprintf("N=%d: too few samples for a reliable confidence interval (±%.4g)", n, s.Error))
	}
	s.CILower, s.CIUpper = s.Mean-s.Error, s.Mean+s.Error

	s.Min, s.Max = sorted[0], sorted[n-1]
	s.Q1 = Quantile(sorted, 0.25)
	s.Median = Quantile(sorted, 0.5)
	s.Q3 = Quantile(sorted, 0.75)
	s.IQR = s.Q3 - s.Q1
	if s.Mean != 0 {
		s.CV = s.StdDev / s.Mean
	}
	s.Outliers = TukeyOutliers(sorted, s.Q1, s.Q3)
	return s
}

// Stability classifies the summary's CV (see StabilityOf).
func (s Summary) Stability() Stability { return StabilityOf(s.CV) }
