package report

import (
	"fmt"
	"strings"

	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
)

// headSection opens the summary: the environment, the table and its legend.
func headSection(r Report) Section {
	t := SummaryTable(r)
	return Section{Blocks: []Block{{Pre: EnvBlock(r)}, tableBlock(t), {Legend: t.Legend}}}
}

// verdictsSection is the time verdicts against the baseline, then the
// cost verdicts: a line per case, its notes, the table of their evidence.
func verdictsSection(r Report) Section {
	s := Section{Title: verdictsTitle}
	if lines := VerdictLines(r); len(lines) > 0 {
		s.Blocks = []Block{{Pre: lines}}
	}
	if lines := CostVerdictLines(r); len(lines) > 0 {
		t := CostVerdictTable(r)
		s.Blocks = append(s.Blocks, Block{Text: costVerdictsIntro}, Block{Pre: lines}, tableBlock(t), Block{Legend: t.Legend})
	}
	return s
}

const costVerdictsIntro = "Cost per payment against the same actor on the baseline (CPU ms and syncs per payment, launches as the unit; more or less: what the case's actor spends):"

func latencySection(r Report) Section {
	return Section{Title: latencyTitle, Blocks: []Block{tableBlock(LatencyTable(r))}}
}

// LatencyTable is the payment latency percentiles of every case.
func LatencyTable(r Report) Table {
	t := Table{Header: []string{"Case", "Min", "Mean", "p50", "p90", "p95", "p99", "p99.9", "Max"}}
	for _, c := range r.Cases {
		l := c.Latency
		t.Rows = append(t.Rows, []string{c.ID, f1(l.Min), f1(l.Mean), f1(l.P50), f1(l.P90), f1(l.P95), f1(l.P99), f1(l.P999), f1(l.Max)})
	}
	return t
}

// detailsSection has one subsection per case: the spread of its
// iterations, its launches, its faults, its latency distribution and
// throughput; every iteration's figures on the page only.
func detailsSection(r Report) Section {
	s := Section{Title: "Details"}
	for _, c := range r.Cases {
		s.Blocks = append(s.Blocks, Block{Heading: c.ID}, Block{Text: IterationLine(c) + "."})
		if l := LaunchLine(c); l != "" {
			s.Blocks = append(s.Blocks, Block{Text: l + "."})
		}
		it := iterationTable(c)
		s.Blocks = append(s.Blocks, Block{Table: &it, PageOnly: true})
		if lines := CaseFaultLines(r, c.ID); len(lines) > 0 {
			s.Blocks = append(s.Blocks, Block{Text: "Faults injected:"}, Block{Bullets: lines})
		}
		if hm := Heatmap(c.Case); len(hm) > 0 {
			s.Blocks = append(s.Blocks, Block{Text: "Latency distribution:"}, Block{Pre: hm})
		}
		if len(c.Timeline) > 0 {
			s.Blocks = append(s.Blocks, Block{Text: "Throughput, " + TimelineCaption(c) + ":"},
				Block{Timeline: &Timeline{PerSecond: c.Timeline, Faults: faultSpans(r, c.ID)}})
		}
	}
	return s
}

// IterationLine sums up the spread of a case's iteration times in one line.
func IterationLine(c Row) string {
	s := c.Spread
	out := fmt.Sprintf("%d measured iteration(s): median %.4g s, IQR %.3g s, CV %.1f%% (%s), jitter %.3g s",
		c.Time.N, c.Time.Median, s.IQR, 100*s.CV, s.Stability, s.Jitter)
	if n := len(s.Outliers); n > 0 {
		out += fmt.Sprintf(", %d outlier(s) (%d mild, %d severe)", n, s.MildOutliers, s.SevereOutliers)
	} else {
		out += ", no outliers"
	}
	return out
}

// TimelineCaption explains the sparkline's scale.
func TimelineCaption(c Row) string {
	top := 0
	for _, n := range c.Timeline {
		top = max(top, n)
	}
	return fmt.Sprintf("successful payments per second since the case started (%d s, peak %d/s)", len(c.Timeline), top)
}

func iterationTable(c Row) Table {
	t := Table{Header: []string{"Iteration", "Time (s)", "Payments", "Succeeded", "Payments/s", "p50 (ms)", "p99 (ms)", "Complete"}}
	for _, it := range c.Iterations {
		t.Rows = append(t.Rows, []string{fmt.Sprint(it.Index), fmt.Sprintf("%.4f", it.Seconds), fmt.Sprint(it.Payments),
			fmt.Sprint(it.Succeeded), fmt.Sprintf("%.2f", it.PaymentsPerSec), f1(it.P50Ms), f1(it.P99Ms), fmt.Sprint(it.Complete)})
	}
	return t
}

func sweepSection(r Report) Section {
	s := Section{Title: "Sweep"}
	if knees := KneeLines(r); len(knees) > 0 {
		s.Blocks = []Block{{Bullets: knees}}
	}
	return s
}

// enginesSection says where each service ran (swarm places them).
func enginesSection(r Report) Section {
	s := Section{Title: "Engines (where each service ran)"}
	if len(r.Placement) == 0 {
		return s
	}
	t := Table{Header: []string{"Network", "Service", "Engine"}}
	for _, p := range r.Placement {
		t.Rows = append(t.Rows, []string{p.Network, p.Service, p.Engine})
	}
	s.Blocks = []Block{tableBlock(t)}
	return s
}

func setupSection(r Report) Section {
	s := Section{Title: "Setup (wall time, s)"}
	if len(r.Setup) > 0 {
		s.Blocks = []Block{tableBlock(phaseTable(r.Setup))}
	}
	return s
}

func teardownSection(r Report) Section {
	s := Section{Title: "Teardown (wall time, s)"}
	if len(r.Teardown) > 0 {
		s.Blocks = []Block{tableBlock(phaseTable(r.Teardown))}
	}
	return s
}

// phaseTable is a row per network, a column per phase, and their total.
func phaseTable(phasesRun []record.Setup) Table {
	var phases []string
	seen := map[string]bool{}
	var nets []string
	byNet := map[string]map[string]float64{}
	for _, s := range phasesRun {
		if !seen[s.Phase] {
			seen[s.Phase] = true
			phases = append(phases, s.Phase)
		}
		if byNet[s.Network] == nil {
			byNet[s.Network] = map[string]float64{}
			nets = append(nets, s.Network)
		}
		byNet[s.Network][s.Phase] += s.Seconds
	}
	t := Table{Header: append(append([]string{"Network"}, phases...), "Total")}
	for _, n := range nets {
		row := []string{n}
		total := 0.0
		for _, p := range phases {
			row = append(row, fmt.Sprintf("%.2f", byNet[n][p]))
			total += byNet[n][p]
		}
		t.Rows = append(t.Rows, append(row, fmt.Sprintf("%.2f", total)))
	}
	return t
}

func warningsSection(r Report) Section {
	s := Section{Title: "Warnings"}
	if warn := AllWarnings(r); len(warn) > 0 {
		s.Blocks = []Block{{Bullets: warn}}
	}
	return s
}

// AllWarnings is the run's warnings, then the analysis's, then every case's notes.
func AllWarnings(r Report) []string {
	warn := append(append([]string(nil), r.Warnings...), r.AnalysisWarnings...)
	insufficient := map[string]int{} // case → measured payments failed short of balance or slots
	for _, c := range r.Cases {
		for _, n := range c.Notes {
			warn = append(warn, c.ID+": "+n)
		}
		insufficient[c.ID] = c.FailureReasons[result.ReasonInsufficientBalance]
	}
	for _, c := range r.Resources {
		if w := c.Outside.Warning(c.ID); w != "" {
			warn = append(warn, w)
		}
		if w := c.SlotsWarning(insufficient[c.ID]); w != "" {
			warn = append(warn, w)
		}
	}
	return warn
}

// footerSection is the harness's own cost, so a reader can tell whether
// the harness competed with the nodes.
func footerSection(r Report) Section {
	lines := []string{fmt.Sprintf("Harness CPU: %.1f s over %.1f s wall (%.1f%% of one core).", r.HarnessCPUSeconds, r.WallSeconds, 100*r.HarnessCPUShare())}
	if r.HarnessProfile != "" {
		lines = append(lines, fmt.Sprintf("Harness CPU profile: %s.", r.HarnessProfile))
	}
	return Section{Blocks: []Block{{Text: strings.Join(lines, "\n")}}}
}

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }
