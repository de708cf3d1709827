package report

import (
	"fmt"
	"math"
)

// Table is the BenchmarkDotNet-style summary table shared by the markdown
// and CSV exporters: one time unit for all time columns, columns shown only
// when informative.
type Table struct {
	Header []string
	Rows   [][]string
	Unit   string
	Legend []string
}

// unit picks one time unit for the whole table so the smallest mean reads ≥ 0.1.
func unit(r Report) (string, float64) {
	minMean := math.Inf(1)
	for _, c := range r.Cases {
		if c.Time.N > 0 && c.Time.Mean < minMean {
			minMean = c.Time.Mean
		}
	}
	switch {
	case minMean < 1e-4:
		return "μs", 1e6
	case minMean < 0.1:
		return "ms", 1e3
	default:
		return "s", 1
	}
}

// SummaryTable builds the table model.
func SummaryTable(r Report) Table {
	u, scale := unit(r)
	t := Table{Unit: u, Header: []string{"Method"}}
	var paramNames []string
	if len(r.Cases) > 0 {
		for _, p := range r.Cases[0].Params {
			paramNames = append(paramNames, p.Name)
		}
	}
	t.Header = append(t.Header, paramNames...)
	t.Header = append(t.Header, "Mean", "Error", "StdDev", "Median", "Payments/s")
	anyFailed := false
	for _, c := range r.Cases {
		if c.Failed > 0 {
			anyFailed = true
		}
	}
	ratios := r.HasRatios()
	if ratios {
		t.Header = append(t.Header, "Ratio", "RatioSD", "Verdict")
	}
	if anyFailed {
		t.Header = append(t.Header, "Failed")
	}
	// CV and Outliers earn a column only when some case is not stable or
	// has outliers: a column of "stable" and zeros is noise.
	anyUnstable, anyOutliers := false, false
	for _, c := range r.Cases {
		anyUnstable = anyUnstable || c.Time.N >= 2 && c.Spread.Stability != "stable"
		anyOutliers = anyOutliers || len(c.Spread.Outliers) > 0
	}
	if anyUnstable {
		t.Header = append(t.Header, "CV")
	}
	if anyOutliers {
		t.Header = append(t.Header, "Outliers")
	}
	for _, c := range r.Cases {
		row := []string{c.Method}
		for _, p := range c.Params {
			row = append(row, p.Value)
		}
		ft := func(v float64) string { return fmt.Sprintf("%.3f %s", v*scale, u) }
		errCol := ft(c.Time.Error)
		if c.Time.N < 2 {
			errCol = "NA"
		}
		row = append(row, ft(c.Time.Mean), errCol, ft(c.Time.StdDev), ft(c.Time.Median), fmt.Sprintf("%.2f", c.PaymentsPerSec))
		if ratios {
			row = append(row, ratioCells(c.Ratio)...)
		}
		if anyFailed {
			row = append(row, fmt.Sprintf("%d", c.Failed))
		}
		if anyUnstable {
			row = append(row, fmt.Sprintf("%.1f%%", 100*c.Spread.CV))
		}
		if anyOutliers {
			row = append(row, fmt.Sprintf("%d/%d", c.Spread.MildOutliers, c.Spread.SevereOutliers))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Legend = []string{
		"Mean       : arithmetic mean of the measured iteration times (one iteration = TotalPayments payments over Concurrency workers)",
		"Error      : half of the 99.9% confidence interval of the mean",
		"StdDev     : standard deviation of the iteration times",
		"Median     : middle iteration time (50th percentile)",
		"Payments/s : successful measured payments / summed measured iteration time",
		fmt.Sprintf("1 %-8s : 1 %s", u, map[string]string{"s": "second", "ms": "millisecond (0.001 s)", "μs": "microsecond (0.000001 s)"}[u]),
	}
	if r.MultiNode() {
		t.Legend = append(t.Legend, "Node       : the node spec the case ran (its build and flags are in the environment block)")
	}
	if ratios {
		t.Legend = append(t.Legend,
			fmt.Sprintf("Ratio      : Mean / Mean of the same params on the baseline spec %s (below 1: faster)", r.BaselineLabel()),
			"RatioSD    : standard deviation of the ratio, Ratio·√(CV² + CV_baseline²) with CV = StdDev/Mean (first-order propagation)",
			fmt.Sprintf("Verdict    : against the baseline's iteration times as lnbench compare decides: faster or slower when the Mann-Whitney U test gives p < %g and the median moved more than %g%%, else within noise", DefaultAlpha, 100*DefaultNoise))
	}
	if anyFailed {
		t.Legend = append(t.Legend, "Failed     : measured payments that did not succeed")
	}
	if anyUnstable {
		t.Legend = append(t.Legend, "CV         : coefficient of variation of the iteration times (StdDev/Mean); ≥5% moderate, ≥15% unstable")
	}
	if anyOutliers {
		t.Legend = append(t.Legend, "Outliers   : mild/severe iterations beyond Tukey's fences (1.5×/3×IQR), kept in the statistics")
	}
	return t
}

// EnvBlock is the environment description printed above the table.
func EnvBlock(r Report) []string {
	e := r.Env
	lines := []string{
		fmt.Sprintf("lnbench, OS=%s, Kernel=%s", e.OS, e.Kernel),
		fmt.Sprintf("%s, %d logical cores, %d MiB", e.CPU, e.Cores, e.MemoryMiB),
		fmt.Sprintf("Harness: %s, backend=%s", e.GoVersion, r.Backend),
	}
	for _, n := range r.Nodes {
		lines = append(lines, specLines(n)...)
	}
	if n := r.Scenario.Node; n.CPUs > 0 || n.Memory != "" {
		lines = append(lines, fmt.Sprintf("Limits per actor container: cpus=%g memory=%s", n.CPUs, n.Memory))
	}
	j := r.Scenario.Job
	reuse := "fresh network per case"
	if r.Scenario.ReuseNetwork {
		reuse = "one network reused across cases"
	}
	if j.Timed() {
		lines = append(lines, fmt.Sprintf("Job: LaunchCount=%d WarmupCount=%d Duration=%v InvocationCount=%d, %s",
			j.LaunchCount, j.WarmupCount, j.Duration, j.InvocationCount, reuse))
	} else {
		lines = append(lines, fmt.Sprintf("Job: LaunchCount=%d WarmupCount=%d IterationCount=%d InvocationCount=%d, %s",
			j.LaunchCount, j.WarmupCount, j.IterationCount, j.InvocationCount, reuse))
	}
	return lines
}

// ratioCells are the Ratio, RatioSD and Verdict cells of a case; NA when
// the baseline spec has no case with the same params.
func ratioCells(rt *Ratio) []string {
	if rt == nil {
		return []string{"NA", "NA", VerdictNoBaseline}
	}
	if rt.Of == 0 {
		return []string{"NA", "NA", rt.Verdict}
	}
	return []string{fmt.Sprintf("%.2f", rt.Of), fmt.Sprintf("%.2f", rt.SD), rt.Verdict}
}
