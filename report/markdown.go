package report

import (
	"fmt"
	"io"
	"strings"
)

// Markdown writes the GitHub-flavoured summary: environment block, table,
// legend, latency percentiles, per-case details (distribution heatmap and
// throughput sparkline), setup timings and warnings.
func Markdown(w io.Writer, r Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n```\n%s\n```\n\n", r.Scenario.Name, strings.Join(EnvBlock(r), "\n"))
	t := SummaryTable(r)
	writeMarkdownTable(&b, t)
	writeLegend(&b, t.Legend)
	writeVerdicts(&b, r)
	b.WriteString("\n## Payment latency (ms)\n\n")
	writeMarkdownTable(&b, LatencyTable(r))
	writeFaults(&b, r)
	if len(r.Cases) > 0 {
		b.WriteString("\n## Details\n")
		for _, c := range r.Cases {
			writeCaseDetails(&b, r, c)
		}
	}
	writeResources(&b, r)
	if knees := KneeLines(r); len(knees) > 0 {
		b.WriteString("\n## Sweep\n\n")
		for _, l := range knees {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	writeRoutes(&b, r)
	writeForwards(&b, r)
	if len(r.Placement) > 0 {
		b.WriteString("\n## Engines (where each service ran)\n\n")
		pt := Table{Header: []string{"Network", "Service", "Engine"}}
		for _, p := range r.Placement {
			pt.Rows = append(pt.Rows, []string{p.Network, p.Service, p.Engine})
		}
		writeMarkdownTable(&b, pt)
	}
	if len(r.Setup) > 0 {
		b.WriteString("\n## Setup (wall time, s)\n\n")
		writeMarkdownTable(&b, setupTable(r))
	}
	writeCostCurve(&b, r)
	if warn := AllWarnings(r); len(warn) > 0 {
		b.WriteString("\n## Warnings\n\n")
		for _, w := range warn {
			fmt.Fprintf(&b, "- %s\n", w)
		}
	}
	fmt.Fprintf(&b, "\nHarness CPU: %.1f s over %.1f s wall (%.1f%% of one core).\n", r.HarnessCPUSeconds, r.WallSeconds, 100*r.HarnessCPUShare())
	if r.HarnessProfile != "" {
		fmt.Fprintf(&b, "Harness CPU profile: %s.\n", r.HarnessProfile)
	}
	_, err := io.WriteString(w, b.String())
	return err
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

func writeCaseDetails(b *strings.Builder, r Report, c Row) {
	fmt.Fprintf(b, "\n### %s\n\n%s.\n", c.ID, IterationLine(c))
	if l := LaunchLine(c); l != "" {
		fmt.Fprintf(b, "\n%s.\n", l)
	}
	if faultLines := CaseFaultLines(r, c.ID); len(faultLines) > 0 {
		b.WriteString("\nFaults injected:\n\n")
		for _, l := range faultLines {
			fmt.Fprintf(b, "- %s\n", l)
		}
	}
	if hm := Heatmap(c.Case); len(hm) > 0 {
		fmt.Fprintf(b, "\nLatency distribution:\n\n```\n%s\n```\n", strings.Join(hm, "\n"))
	}
	if len(c.Timeline) > 0 {
		fmt.Fprintf(b, "\nThroughput, %s:\n\n```\n%s\n```\n", TimelineCaption(c), strings.Join(SparklineFaults(c.Timeline, 60, faultSpans(r, c.ID)), "\n"))
	}
}

// AllWarnings is the run's warnings, then the analysis's, then every case's notes.
func AllWarnings(r Report) []string {
	warn := append(append([]string(nil), r.Warnings...), r.AnalysisWarnings...)
	for _, c := range r.Cases {
		for _, n := range c.Notes {
			warn = append(warn, c.ID+": "+n)
		}
	}
	for _, c := range r.Resources {
		if w := c.Outside.Warning(c.ID); w != "" {
			warn = append(warn, w)
		}
	}
	return warn
}

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }

func setupTable(r Report) Table {
	var phases []string
	seen := map[string]bool{}
	var nets []string
	byNet := map[string]map[string]float64{}
	for _, s := range r.Setup {
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

func writeMarkdownTable(b *strings.Builder, t Table) {
	b.WriteString("| " + strings.Join(t.Header, " | ") + " |\n|")
	for i := range t.Header {
		if i == 0 {
			b.WriteString("---|")
		} else {
			b.WriteString("---:|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
}

// writeLegend writes a table's legend after a blank line, indented so
// markdown shows it as preformatted text.
func writeLegend(b *strings.Builder, legend []string) {
	b.WriteString("\n")
	for _, l := range legend {
		fmt.Fprintf(b, "    %s\n", l)
	}
}

// Text writes the table for a terminal: aligned columns, no markdown pipes noise.
func Text(w io.Writer, r Report) error {
	t := SummaryTable(r)
	widths := make([]int, len(t.Header))
	for i, h := range t.Header {
		widths[i] = len([]rune(h))
	}
	for _, row := range t.Rows {
		for i, c := range row {
			if n := len([]rune(c)); n > widths[i] {
				widths[i] = n
			}
		}
	}
	var b strings.Builder
	for _, l := range EnvBlock(r) {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n")
	line := func(cells []string) {
		for i, c := range cells {
			pad := widths[i] - len([]rune(c))
			if i == 0 {
				b.WriteString(c + strings.Repeat(" ", pad))
			} else {
				b.WriteString(" | " + strings.Repeat(" ", pad) + c)
			}
		}
		b.WriteString("\n")
	}
	line(t.Header)
	sep := make([]string, len(widths))
	for i, wd := range widths {
		sep[i] = strings.Repeat("-", wd)
	}
	line(sep)
	for _, row := range t.Rows {
		line(row)
	}
	if vl := VerdictLines(r); len(vl) > 0 {
		b.WriteString("\nVerdicts against the baseline:\n  " + strings.Join(vl, "\n  ") + "\n")
	}
	writeResourceVerdicts(&b, r)
	if len(r.Faults) > 0 {
		b.WriteString("\nFaults:\n")
		for _, c := range r.Cases {
			for _, l := range CaseFaultLines(r, c.ID) {
				fmt.Fprintf(&b, "  %s: %s\n", c.ID, l)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeResourceVerdicts adds, under the terminal table, each case's
// bottleneck verdict and sync ceiling, and the sampling overhead.
func writeResourceVerdicts(b *strings.Builder, r Report) {
	if len(r.Resources) == 0 && len(r.SamplingOverhead) == 0 {
		return
	}
	b.WriteString("\nResources:\n")
	for _, c := range r.Resources {
		if len(c.Actors) == 0 {
			continue
		}
		fmt.Fprintf(b, "  %s: %s\n", c.ID, c.Verdict.Text)
		if cl := c.Ceiling; cl != nil {
			fmt.Fprintf(b, "  %s: sync ceiling %.1f payments/s (%s), measured %.2f\n", c.ID, cl.PaymentsPerSec, cl.Storage, cl.Measured)
		}
		if c.HasHarnessShare {
			proxy := ""
			if c.ProxyShare > 0 {
				proxy = fmt.Sprintf(" (docker-proxy %.2f%% of it)", 100*c.ProxyShare)
			}
			fmt.Fprintf(b, "  %s: harness CPU %.2f%% of the nodes'%s\n", c.ID, 100*c.HarnessShare, proxy)
		}
	}
	for _, o := range r.SamplingOverhead {
		fmt.Fprintf(b, "  sampling overhead, %s\n", OverheadLine(o))
	}
}
