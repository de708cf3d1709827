package stats

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	low := seq(10, 19, 1)  // median 14.5
	high := seq(20, 29, 1) // median 24.5, fully separated from low
	odd := seq(1, 19, 2)   // 1,3,...,19: median 10
	even := seq(2, 20, 2)  // 2,4,...,20: median 11, interleaved with odd
	// All of tinyNew is above tinyBase (significant) but the medians differ
	// by only 0.2% (100.245 vs 100.045), under a 1% noise threshold.
	tinyBase := seq(100, 100.09, 0.01)
	tinyNew := seq(100.2, 100.29, 0.01)

	// P for two fully separated samples of 10 is exact: 2/C(20,10) =
	// 1.0825e-05 (R: wilcox.test(1:10, 11:20)$p.value).
	pSeparated := 2 / 184756.0

	tests := []struct {
		name          string
		base, new     []float64
		alpha, noise  float64
		lowerIsBetter bool
		verdict       Verdict
		change, p     float64 // NaN = not pinned
		warn          string  // substring of a warning; "" = none expected
	}{
		{"slower latency regressed", low, high, 0.05, 0.01, true, Regressed, 10 / 14.5, pSeparated, ""},
		{"faster latency improved", high, low, 0.05, 0.01, true, Improved, -10 / 24.5, pSeparated, ""},
		{"higher throughput improved", low, high, 0.05, 0.01, false, Improved, 10 / 14.5, pSeparated, ""},
		{"lower throughput regressed", high, low, 0.05, 0.01, false, Regressed, -10 / 24.5, pSeparated, ""},
		// Same values: U1 == U2, so p = 1.
		{"identical samples", low, slices.Clone(low), 0.05, 0.01, true, WithinNoise, 0, 1, ""},
		// Interleaved: medians differ by 10% but p = 0.7394 (R:
		// wilcox.test(seq(1,19,2), seq(2,20,2))), so not significant.
		{"same distribution", odd, even, 0.05, 0.01, true, WithinNoise, 0.1, 0.7393644, ""},
		{"significant but tiny", tinyBase, tinyNew, 0.05, 0.01, true, WithinNoise, 0.2 / 100.045, pSeparated, ""},
		{"tiny but noise threshold 0", tinyBase, tinyNew, 0.05, 0, true, Regressed, 0.2 / 100.045, pSeparated, ""},
		// 3 vs 3 can at best reach p = 2/C(6,3) = 0.1 ≥ 0.05.
		{"too few samples", []float64{1, 2, 3}, []float64{10, 11, 12}, 0.05, 0.01, true, Inconclusive, 9 / 2.0, 0.1, "too few samples for significance"},
		// 4 vs 4 reaches 2/C(8,4) = 0.02857 < 0.05.
		{"four is enough", []float64{1, 2, 3, 4}, []float64{10, 11, 12, 13}, 0.05, 0.01, true, Regressed, 9 / 2.5, 2 / 70.0, ""},
		{"empty base", nil, low, 0.05, 0.01, true, Inconclusive, 0, 1, "empty sample"},
		{"all equal", []float64{5, 5, 5, 5, 5}, []float64{5, 5, 5, 5, 5}, 0.05, 0.01, true, WithinNoise, 0, 1, "all samples are equal"},
		{"zero base median", []float64{-2, -1, 0, 1, 2}, []float64{8, 9, 10, 11, 12}, 0.05, 0.01, true, Inconclusive, 0, math.NaN(), "base median is 0"},
		{"bad alpha uses default", low, high, 0, -1, true, Regressed, 10 / 14.5, pSeparated, ""},
		{"non-finite dropped", append(slices.Clone(low), math.NaN()), high, 0.05, 0.01, true, Regressed, 10 / 14.5, pSeparated, "dropped 1 non-finite"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			baseOrig, newOrig := slices.Clone(tt.base), slices.Clone(tt.new)
			c := Compare(tt.base, tt.new, tt.alpha, tt.noise, tt.lowerIsBetter)
			if c.Verdict != tt.verdict {
				t.Errorf("Verdict = %v, want %v (P=%g Change=%g warnings=%q)", c.Verdict, tt.verdict, c.P, c.Change, c.Warnings)
			}
			if c.TooFewSamples != strings.Contains(tt.warn, "too few") {
				t.Errorf("TooFewSamples = %v with warnings %q", c.TooFewSamples, c.Warnings)
			}
			if !math.IsNaN(tt.change) {
				checkFloat(t, "Change", c.Change, tt.change, 1e-9)
			}
			if !math.IsNaN(tt.p) {
				checkFloat(t, "P", c.P, tt.p, 1e-6)
			}
			joined := strings.Join(c.Warnings, "; ")
			if tt.warn == "" && len(c.Warnings) > 0 {
				t.Errorf("unexpected warnings: %q", joined)
			}
			if tt.warn != "" && !strings.Contains(joined, tt.warn) {
				t.Errorf("warnings %q do not mention %q", joined, tt.warn)
			}
			if !sameFloats(tt.base, baseOrig) || !sameFloats(tt.new, newOrig) {
				t.Errorf("Compare modified its input")
			}
		})
	}
}

func TestCompareDefaults(t *testing.T) {
	c := Compare(seq(1, 10, 1), seq(1, 10, 1), 2, math.NaN(), true)
	if c.Alpha != DefaultAlpha || c.NoiseThreshold != DefaultNoiseThreshold {
		t.Errorf("Alpha, NoiseThreshold = %v, %v; want defaults", c.Alpha, c.NoiseThreshold)
	}
	c = Compare(seq(1, 10, 1), seq(1, 10, 1), 0.01, 0.05, true)
	if c.Alpha != 0.01 || c.NoiseThreshold != 0.05 {
		t.Errorf("Alpha, NoiseThreshold = %v, %v; want 0.01, 0.05", c.Alpha, c.NoiseThreshold)
	}
	if c.BaseMedian != 5.5 || c.NewMedian != 5.5 {
		t.Errorf("medians = %v, %v; want 5.5", c.BaseMedian, c.NewMedian)
	}
}

func TestVerdictString(t *testing.T) {
	tests := []struct {
		v    Verdict
		want string
	}{
		{Improved, "improved"}, {Regressed, "regressed"}, {WithinNoise, "within noise"},
		{Inconclusive, "inconclusive"}, {Verdict(99), "unknown"},
	}
	for _, tt := range tests {
		if got := tt.v.String(); got != tt.want {
			t.Errorf("%d.String() = %q, want %q", int(tt.v), got, tt.want)
		}
	}
}

func TestMinUTestP(t *testing.T) {
	// 2/C(n1+n2, n1); equal sizes match benchmath's uTestMinP table.
	tests := []struct {
		n1, n2 int
		want   float64
	}{
		{1, 1, 1}, {3, 3, 0.1}, {4, 4, 2 / 70.0}, {5, 5, 2 / 252.0}, {3, 10, 2 / 286.0}, {10, 10, 2 / 184756.0},
	}
	for _, tt := range tests {
		checkFloat(t, "minUTestP", minUTestP(tt.n1, tt.n2), tt.want, 1e-12)
	}
	if n := uTestSamplesNeeded(0.05); n != 4 {
		t.Errorf("uTestSamplesNeeded(0.05) = %d, want 4", n)
	}
	if n := uTestSamplesNeeded(0.01); n != 5 {
		t.Errorf("uTestSamplesNeeded(0.01) = %d, want 5", n)
	}
}
