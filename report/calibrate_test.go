package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/scenario"
)

// aaReport is a two-spec report of one case whose launches have the
// given mean seconds (b's are a's times factor, times a wobble).
func aaReport(pairs int, factor float64) Report {
	r := Report{Manifest: record.Manifest{Nodes: []record.NodeInfo{{Label: "a", Baseline: true}, {Label: "b"}}, Design: &record.Design{Name: DesignInterleaved}}}
	for _, label := range []string{"a", "b"} {
		row := Row{Node: label, Params: []scenario.Value{{Name: nodeParam, Value: label}, {Name: "Concurrency", Value: "20"}}}
		for l := 0; l < pairs; l++ {
			// Drift shared by both sides, and a small alternating wobble.
			v := 1 + 0.1*math.Sin(float64(l))
			if label == "b" {
				v *= factor * (1 + 0.01*float64(l%3-1))
			}
			row.Launches = append(row.Launches, analysis.Launch{Launch: l, Iterations: 5, MeanSeconds: v})
		}
		r.Cases = append(r.Cases, row)
	}
	return r
}

func TestCalibrateCountsWindowsVerdicts(t *testing.T) {
	cal, err := Calibrate(aaReport(12, 1), 6)
	if err != nil {
		t.Fatal(err)
	}
	if cal.Comparisons != 2 || cal.Pairs != 12 || cal.False != 0 || cal.Same+cal.Unknown != 2 || cal.Design != DesignInterleaved {
		t.Errorf("A/A calibration %+v", cal)
	}
	slow, err := Calibrate(aaReport(12, 1.3), 6)
	if err != nil {
		t.Fatal(err)
	}
	if slow.False != 2 || slow.Rate != 1 || slow.Verdicts[0].Verdict != VerdictSlower {
		t.Errorf("a 30%% slowdown counted %+v", slow)
	}
	var md bytes.Buffer
	WriteCalibration(&md, slow)
	if !strings.Contains(md.String(), "False-positive rate: 2 of 2 comparisons = 100.0%") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if _, err := Calibrate(aaReport(4, 1), 6); err == nil || !strings.Contains(err.Error(), "fewer than one window of 6") {
		t.Errorf("too few pairs: %v", err)
	}
	if _, err := Calibrate(Report{}, 6); err == nil {
		t.Error("a one-spec run calibrated")
	}
}

func TestClopperPearsonHigh(t *testing.T) {
	// 0 of 40: 1 - 0.05^(1/40).
	if got, want := clopperPearsonHigh(0, 40, 0.05), 1-math.Pow(0.05, 1.0/40); math.Abs(got-want) > 1e-9 {
		t.Errorf("0/40: %g, want %g", got, want)
	}
	if got := clopperPearsonHigh(1, 40, 0.05); got < 0.1 || got > 0.13 { // 11.3% (exact tables)
		t.Errorf("1/40: %g", got)
	}
}

// withSpec adds spec label to r, its launches c's (the first non-baseline
// case) times factor, built from build.
func withSpec(r Report, label, build string, factor float64) Report {
	r.Nodes = append(r.Nodes, record.NodeInfo{Label: label, Build: build})
	for _, c := range r.Cases {
		if c.Node != "b" {
			continue
		}
		row := Row{Node: label, Params: []scenario.Value{{Name: nodeParam, Value: label}, c.Params[1]}}
		for _, l := range c.Launches {
			l.MeanSeconds *= factor
			row.Launches = append(row.Launches, l)
		}
		r.Cases = append(r.Cases, row)
	}
	return r
}

func TestCalibrateDetection(t *testing.T) {
	// b is a copy of a (A/A); slow is 10% slower, tiny is 0.2% slower
	// (below what 12 pairs resolve, so its windows are not scored).
	r := withSpec(withSpec(aaReport(12, 1), "slow", "lnd@src:/tmp/slow", 1.10), "tiny", "lnd@src:/tmp/tiny", 1.002)
	cal, err := Calibrate(r, 6)
	if err != nil {
		t.Fatal(err)
	}
	if cal.Comparisons != 2 || cal.False != 0 {
		t.Errorf("A/A part %+v", cal)
	}
	if len(cal.Detections) != 2 {
		t.Fatalf("detections %+v", cal.Detections)
	}
	slow, tiny := cal.Detections[0], cal.Detections[1]
	if slow.Spec != "slow" || slow.Comparisons != 2 || slow.Detected != 2 || slow.Rate != 1 || slow.RateLow <= 0 || slow.Cases[0].Verdict != VerdictSlower {
		t.Errorf("10%% slowdown: %+v", slow)
	}
	if tiny.Comparisons != 0 || len(tiny.Verdicts) != 2 || tiny.Cases[0].Verdict == VerdictSlower {
		t.Errorf("0.2%% slowdown scored: %+v", tiny)
	}
	var md bytes.Buffer
	WriteCalibration(&md, cal)
	for _, want := range []string{"## A/A: the baseline against a copy", "## Detection: slow (lnd@src:/tmp/slow)", "**Detection rate: 2 of 2 comparisons = 100.0%**", "| Concurrency=20 | 12 | 1.100 |", "No case's change is established"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	// A run of changed specs only: detection without an A/A part.
	r.Nodes[1].Build = "lnd@other"
	if cal, err = Calibrate(r, 6); err != nil || cal.Comparisons != 0 || len(cal.Detections) != 3 {
		t.Errorf("no copy: %+v, %v", cal, err)
	}
}

func TestClopperPearsonLow(t *testing.T) {
	// n of n: 0.05^(1/n).
	if got, want := clopperPearsonLow(40, 40, 0.05), math.Pow(0.05, 1.0/40); math.Abs(got-want) > 1e-9 {
		t.Errorf("40/40: %g, want %g", got, want)
	}
	if clopperPearsonLow(0, 10, 0.05) != 0 {
		t.Error("0/10 lower bound not 0")
	}
}

func TestMergeCalibrations(t *testing.T) {
	one, err := Calibrate(aaReport(12, 1), 6)
	if err != nil {
		t.Fatal(err)
	}
	slow, err := Calibrate(aaReport(6, 1.3), 6)
	if err != nil {
		t.Fatal(err)
	}
	m, err := MergeCalibrations([]Calibration{one, slow})
	if err != nil {
		t.Fatal(err)
	}
	if m.Comparisons != 3 || m.False != 1 || m.Pairs != 18 || m.LogRatios != 18 || math.Abs(m.Rate-1.0/3) > 1e-12 || m.RateHigh <= m.Rate {
		t.Errorf("merged %+v", m)
	}
	// The RMS of all 18 pairs, not the mean of two RMS.
	want := math.Sqrt((12*one.RMSLogRatio*one.RMSLogRatio + 6*slow.RMSLogRatio*slow.RMSLogRatio) / 18)
	if math.Abs(m.RMSLogRatio-want) > 1e-12 {
		t.Errorf("RMS %g, want %g", m.RMSLogRatio, want)
	}
	slow.Window = 3
	if _, err := MergeCalibrations([]Calibration{one, slow}); err == nil || !strings.Contains(err.Error(), "merge runs of one test only") {
		t.Errorf("different windows merged: %v", err)
	}
}

// An interrupted run's last round, cut short on one side, is not read.
func TestCalibrateSkipsUnfinishedRounds(t *testing.T) {
	r := aaReport(7, 1)
	for i := range r.Cases {
		if r.Cases[i].Node == "b" {
			r.Cases[i].Launches[6].Iterations = 2
		}
	}
	cal, err := Calibrate(r, 6)
	if err != nil || cal.Pairs != 6 || cal.Comparisons != 1 {
		t.Errorf("%+v, %v", cal, err)
	}
}

// An open loop's A/A is read on p50 latency, as its verdicts are: its
// iteration time is the schedule's. Here the time is flat and the p50s of
// one side are 30% higher, so every window says slower and the spread is
// p50's.
func TestCalibrateOpenLoopReadsP50(t *testing.T) {
	r := aaReport(12, 1)
	for i := range r.Cases {
		r.Cases[i].OfferedPerSec = 50
		for l := range r.Cases[i].Launches {
			r.Cases[i].Launches[l].MeanSeconds = 2 // TotalPayments / Rate
			p50 := 100 * (1 + 0.1*math.Sin(float64(l)))
			if r.Cases[i].Node == "b" {
				p50 *= 1.3
			}
			r.Cases[i].Launches[l].P50Ms = p50
		}
	}
	cal, err := Calibrate(r, 6)
	if err != nil {
		t.Fatal(err)
	}
	if cal.False != 2 || cal.Verdicts[0].Verdict != VerdictSlower || math.Abs(cal.RMSLogRatio-math.Log(1.3)) > 1e-9 {
		t.Errorf("open loop: %d false, verdict %q, RMS log ratio %.4f (want %.4f, p50's)", cal.False, cal.Verdicts[0].Verdict, cal.RMSLogRatio, math.Log(1.3))
	}
}
