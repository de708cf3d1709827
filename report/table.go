package report

import (
	"fmt"
	"math"

	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/snapshot"
)

// Table is a table of the reports: a header and rows of cells. The
// BenchmarkDotNet-style summary table (SummaryTable, shared by every
// writer and the CSV) also has one time unit for all its time columns and
// a legend of the columns it shows, which are only the informative ones.
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
		t.Header = append(t.Header, ratioHeader(r.verdictConfig().alpha)...)
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
		cfg := r.verdictConfig()
		t.Legend = append(t.Legend,
			fmt.Sprintf("Ratio      : mean iteration time / the baseline spec %s's, same params (below 1: faster); the geometric mean over launch rounds", r.BaselineLabel()),
			"RatioSD    : standard deviation of one iteration's ratio, Ratio·√(CV² + CV_baseline²) with CV = StdDev/Mean (first-order propagation)",
			fmt.Sprintf("%-10s : confidence interval of Ratio from the launches: a paired t test of the per-round log ratios (Welch's when the rounds differ)", ciLabel(cfg.alpha)),
			"p          : two-sided p-value of that test",
			"n          : launches per side, baseline+case (\"it\": iterations of one launch, blind to launch-to-launch variance)",
			"MDE        : smallest change the test detects with 80% power: a smaller real change is likely called \"not yet known\"",
			fmt.Sprintf("Verdict    : faster/slower when p < %.4g and Ratio moved more than %g%%; same when the whole interval is within ±%g%%; else not yet known (add launches)",
				cfg.alpha, 100*cfg.noise, 100*cfg.effect))
		if r.Design.Alpha(1) < 1 {
			t.Legend = append(t.Legend, fmt.Sprintf("             (until known: alpha %g split over %d looks at the verdicts, so stopping early cannot raise the false-positive rate)", DefaultAlpha, r.Design.Looks))
		}
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
		lines = append(lines, fmt.Sprintf("Limits per node container (not btcd's): cpus=%g memory=%s", n.CPUs, n.Memory))
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
	if r.Design != nil {
		lines = append(lines, r.Design.Line())
	}
	return append(lines, snapshotLines(r.Snapshots)...)
}

// snapshotLines say which snapshots the networks were restored from, one
// line per snapshot.
func snapshotLines(snaps []record.NetworkSnapshot) []string {
	var keys []string
	count := map[string]int{}
	first := map[string]record.NetworkSnapshot{}
	for _, s := range snaps {
		if count[s.Key] == 0 {
			keys = append(keys, s.Key)
			first[s.Key] = s
		}
		count[s.Key]++
		if s.MadeByThisRun {
			first[s.Key] = s
		}
	}
	var out []string
	for _, k := range keys {
		s := first[k]
		made := "made " + s.Made.UTC().Format("2006-01-02 15:04 UTC") + " by " + s.By
		if s.MadeByThisRun {
			made = "made by this run"
		}
		out = append(out, fmt.Sprintf("Networks: %d restored from snapshot %s (%s, %s)", count[k], k, made, snapshot.Size(s.Bytes)))
	}
	return out
}

// ratioHeader are the columns of a case against the baseline.
func ratioHeader(alpha float64) []string {
	return []string{"Ratio", "RatioSD", ciLabel(alpha), "p", "n", "MDE", "Verdict"}
}

// ratioCells are the ratioHeader cells of a case; NA when the baseline
// spec has no case with the same params.
func ratioCells(rt *Ratio) []string {
	if rt == nil {
		return []string{"NA", "NA", "NA", "NA", "NA", "NA", VerdictNoBaseline}
	}
	cells := ratioCellsOf(rt)
	if rt.Unreliable {
		cells[len(cells)-1] += " (" + BusyNote + ")"
	}
	return cells
}

func ratioCellsOf(rt *Ratio) []string {
	n := fmt.Sprintf("%d+%d", rt.NBase, rt.NNew)
	if rt.Level == LevelIterations {
		n += " it"
	}
	if rt.Verdict == VerdictBaseline {
		return []string{"1.00", "0.00", "-", "-", fmt.Sprint(rt.NBase), "-", rt.Verdict}
	}
	if rt.Of == 0 {
		return []string{"NA", "NA", "NA", "NA", n, "NA", rt.Verdict}
	}
	ci, mde := "NA", "NA"
	if rt.Low > 0 {
		ci = fmt.Sprintf("%.2f–%.2f", rt.Low, rt.High)
	}
	if rt.MDE > 0 {
		mde = fmt.Sprintf("%.1f%%", 100*rt.MDE)
	}
	return []string{fmt.Sprintf("%.2f", rt.Of), fmt.Sprintf("%.2f", rt.SD), ci, pText(rt.P), n, mde, rt.Verdict}
}
