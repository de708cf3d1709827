package analysis

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/result"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// pay is one measured payment of case "C" starting at offset from t0.
func pay(iter int, offset, latency time.Duration, status string) result.Record {
	r := result.Record{Case: "C", Phase: result.Measure, Iteration: iter, Start: t0.Add(offset), End: t0.Add(offset + latency), Status: status}
	if status != result.Succeeded {
		r.FailureReason = "NO_ROUTE"
	}
	return r
}

// iterations makes one single-payment iteration per time in secs, 100 s
// apart, so iteration i takes exactly secs[i].
func iterations(secs ...float64) []result.Record {
	var recs []result.Record
	for i, s := range secs {
		recs = append(recs, pay(i, time.Duration(i)*100*time.Second, time.Duration(s*float64(time.Second)), result.Succeeded))
	}
	return recs
}

func analyzeOne(t *testing.T, recs []result.Record, payments int) Case {
	t.Helper()
	cs := Analyze(recs, []string{"C"}, map[string]Shape{"C": {Payments: payments, Invocations: 1}})
	if len(cs) != 1 {
		t.Fatalf("got %d cases", len(cs))
	}
	return cs[0]
}

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.10g, want %.10g", name, got, want)
	}
}

func hasNote(c Case, sub string) bool {
	return slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, sub) })
}

func TestOutliers(t *testing.T) {
	// 10..19, 30, 40: Q1 12.75, Q3 18.25 (R type 7), fences 26.5 and 34.75.
	c := analyzeOne(t, iterations(10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 30, 40), 1)
	s := c.Spread
	if s.MildOutliers != 1 || s.SevereOutliers != 1 {
		t.Fatalf("mild, severe = %d, %d; want 1, 1", s.MildOutliers, s.SevereOutliers)
	}
	want := []Outlier{{Iteration: 10, Seconds: 30, High: true}, {Iteration: 11, Seconds: 40, High: true, Severe: true}}
	if !slices.Equal(s.Outliers, want) {
		t.Errorf("Outliers = %+v, want %+v", s.Outliers, want)
	}
	near(t, "IQR", s.IQR, 5.5, 1e-9)
	// |Δ| = 1 nine times, then 11 and 10: 30/11.
	near(t, "Jitter", s.Jitter, 30.0/11, 1e-9)
	if !hasNote(c, "2 outlier iteration(s) (1 mild, 1 severe)") || !hasNote(c, "#11 40 s (severe)") {
		t.Errorf("notes %q lack the outlier line", c.Notes)
	}
}

func TestStabilityAndSampleSize(t *testing.T) {
	c := analyzeOne(t, iterations(1, 1.01, 0.99), 1)
	if c.Spread.Stability != "stable" {
		t.Errorf("Stability = %q, want stable", c.Spread.Stability)
	}
	near(t, "CV", c.Spread.CV, 0.01, 1e-9) // sd 0.01 / mean 1
	if !hasNote(c, "N=3: too few samples") {
		t.Errorf("notes %q lack the sample size line", c.Notes)
	}
	if hasNote(c, "CV ") {
		t.Errorf("stable case got a CV note: %q", c.Notes)
	}
	// R: sd(c(1,2,1,2,1,2))/1.5 = 0.365: unstable.
	u := analyzeOne(t, iterations(1, 2, 1, 2, 1, 2), 1)
	if u.Spread.Stability != "unstable" || !hasNote(u, "CV 36.5% (unstable)") {
		t.Errorf("Stability = %q, notes %q; want unstable with a CV note", u.Spread.Stability, u.Notes)
	}
}

func TestDrift(t *testing.T) {
	// Exactly 1.0 + 0.1·i: slope 0.1 s on a mean of 1.45 s = 6.9% per iteration.
	c := analyzeOne(t, iterations(1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9), 1)
	d := c.Spread.Drift
	if d == nil {
		t.Fatal("no drift fitted")
	}
	near(t, "Slope", d.Slope, 0.1, 1e-9)
	near(t, "Relative", d.Relative, 0.1/1.45, 1e-9)
	if d.P > 1e-6 || !hasNote(c, "iteration time grows 6.9% per iteration") {
		t.Errorf("P = %g, notes %q; want a significant drift note", d.P, c.Notes)
	}
	// Alternating values: slope 0.00303/iteration, p = 0.6305 (R: summary(lm(y ~ x))).
	flat := analyzeOne(t, iterations(1, 1.1, 1, 1.1, 1, 1.1, 1, 1.1, 1, 1.1), 1)
	near(t, "flat P", flat.Spread.Drift.P, 0.6305361, 1e-6)
	if hasNote(flat, "per iteration") {
		t.Errorf("no drift expected, notes %q", flat.Notes)
	}
	// Significant but tiny (0.01% per iteration): no note.
	tiny := analyzeOne(t, iterations(1, 1.0001, 1.0002, 1.0003, 1.0004), 1)
	if hasNote(tiny, "per iteration") {
		t.Errorf("tiny drift should not be noted: %q", tiny.Notes)
	}
}

func TestLatencyTimelineAndFailures(t *testing.T) {
	ms := time.Millisecond
	var recs []result.Record
	// Iteration 0: latencies 1..100 ms, all starting at t0: ends within 0.1 s.
	for i := 1; i <= 100; i++ {
		recs = append(recs, pay(0, 0, time.Duration(i)*ms, result.Succeeded))
	}
	// Iteration 1 starts at 2.5 s: three successes ending at 2.6, 3.4, 3.9 s and one failure.
	recs = append(recs,
		pay(1, 2500*ms, 100*ms, result.Succeeded), pay(1, 2500*ms, 900*ms, result.Succeeded),
		pay(1, 2500*ms, 1400*ms, result.Succeeded), pay(1, 2500*ms, 1000*ms, result.Failed))
	c := analyzeOne(t, recs, 0)
	l := c.Latency
	// R: quantile(c(1:100, 100, 900, 1400), c(0, .5, .9)) → 1, 52, 92.8.
	near(t, "Min", l.Min, 1, 1e-9)
	near(t, "P50", l.P50, 52, 1e-9)
	near(t, "P90", l.P90, 92.8, 1e-9)
	near(t, "Max", l.Max, 1400, 1e-9)
	// Second 0: 100 payments; second 2: 2.6 s; second 3: 3.4 s and 3.9 s.
	if want := []int{100, 0, 1, 2}; !slices.Equal(c.Timeline, want) {
		t.Errorf("Timeline = %v, want %v", c.Timeline, want)
	}
	if c.Failed != 1 || c.FailureReasons["NO_ROUTE"] != 1 {
		t.Errorf("Failed = %d reasons %v", c.Failed, c.FailureReasons)
	}
	near(t, "error rate", c.ErrorRates()["NO_ROUTE"], 1.0/104, 1e-12)
	if !hasNote(c, "1 of 104 payments failed (1.0%): 1 × NO_ROUTE (1.0%)") {
		t.Errorf("notes %q lack the failure line", c.Notes)
	}
	// Heatmap rows add up to the histogram.
	sum := make([]int, len(c.LatencyHistogram.Counts))
	for _, it := range c.Iterations {
		for i, n := range it.LatencyCounts {
			sum[i] += n
		}
	}
	if !slices.Equal(sum, c.LatencyHistogram.Counts) || c.LatencyHistogram.Total() != 103 {
		t.Errorf("heatmap column sums %v != histogram %v", sum, c.LatencyHistogram.Counts)
	}
	it1 := c.Iterations[1]
	near(t, "iteration 1 payments/s", it1.PaymentsPerSec, 3/1.4, 1e-9)
	near(t, "iteration 0 p50", c.Iterations[0].P50Ms, 50.5, 1e-9)
	near(t, "iteration 0 p99", c.Iterations[0].P99Ms, 99.01, 1e-9)
	if !hasNote(c, "p99.9 latency rests on 103 payments") {
		t.Errorf("notes %q lack the p99.9 caveat", c.Notes)
	}
}

func TestIncompleteAndEmpty(t *testing.T) {
	recs := iterations(1, 1, 1)
	recs = append(recs, pay(3, 300*time.Second, time.Second, result.Succeeded))
	recs[3].Iteration = 2 // iteration 2 now has 2 payments, the others 1
	c := analyzeOne(t, recs[:3], 2)
	if c.Time.N != 0 || !hasNote(c, "iteration 0 is incomplete") {
		t.Errorf("N = %d notes %q", c.Time.N, c.Notes)
	}
	e := analyzeOne(t, nil, 1)
	if e.Spread.Stability != "unknown" || !hasNote(e, "no measured payments") || e.Timeline != nil {
		t.Errorf("empty case: %+v", e)
	}
}

func TestAbortedPaymentsAreRecordedButNeitherFailedNorMeasured(t *testing.T) {
	// Iteration 0: two payments that finished. Iteration 1: one finished,
	// one aborted when the run stopped; it must not count as complete.
	recs := []result.Record{
		pay(0, 0, time.Second, result.Succeeded), pay(0, 0, time.Second, result.Succeeded),
		pay(1, 100*time.Second, time.Second, result.Succeeded), pay(1, 100*time.Second, 3*time.Second, result.Aborted),
	}
	c := analyzeOne(t, recs, 2)
	if c.Payments != 4 || c.Succeeded != 3 || c.Failed != 0 || c.Aborted != 1 || len(c.FailureReasons) != 0 {
		t.Errorf("counts: payments %d ok %d failed %d aborted %d reasons %v", c.Payments, c.Succeeded, c.Failed, c.Aborted, c.FailureReasons)
	}
	if c.Time.N != 1 || !hasNote(c, "iteration 1 is incomplete (1 of 2 payments)") || !hasNote(c, "1 payment(s) were in flight") {
		t.Errorf("N = %d notes %q", c.Time.N, c.Notes)
	}
	if c.Latency.Max != 1000 {
		t.Errorf("an aborted payment's time entered the latencies: max %v ms", c.Latency.Max)
	}
}
