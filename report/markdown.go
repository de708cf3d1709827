package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Markdown writes the GitHub-flavoured summary: environment block, table,
// legend, setup timings and warnings.
func Markdown(w io.Writer, r Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n```\n%s\n```\n\n", r.Scenario.Name, strings.Join(EnvBlock(r), "\n"))
	writeMarkdownTable(&b, SummaryTable(r))
	b.WriteString("\n")
	for _, l := range SummaryTable(r).Legend {
		fmt.Fprintf(&b, "    %s\n", l)
	}
	b.WriteString("\n## Payment latency (ms)\n\n")
	lat := Table{Header: []string{"Case", "Mean", "p50", "p90", "p95", "p99", "p99.9", "Max"}}
	for _, c := range r.Cases {
		l := c.Latency
		lat.Rows = append(lat.Rows, []string{c.ID, f1(l.Mean), f1(l.P50), f1(l.P90), f1(l.P95), f1(l.P99), f1(l.P999), f1(l.Max)})
	}
	writeMarkdownTable(&b, lat)
	if len(r.Setup) > 0 {
		b.WriteString("\n## Setup (wall time, s)\n\n")
		writeMarkdownTable(&b, setupTable(r))
	}
	var warn []string
	warn = append(warn, r.Warnings...)
	for _, c := range r.Cases {
		for _, w := range append(append([]string(nil), c.Time.Warnings...), c.Warnings...) {
			warn = append(warn, c.ID+": "+w)
		}
		if len(c.FailureReasons) > 0 {
			var keys []string
			for k := range c.FailureReasons {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				warn = append(warn, fmt.Sprintf("%s: %d × %s", c.ID, c.FailureReasons[k], k))
			}
		}
	}
	if len(warn) > 0 {
		b.WriteString("\n## Warnings\n\n")
		for _, w := range warn {
			fmt.Fprintf(&b, "- %s\n", w)
		}
	}
	fmt.Fprintf(&b, "\nHarness CPU: %.1f s over %.1f s wall (%.1f%% of one core).\n", r.HarnessCPUSeconds, r.WallSeconds, 100*r.HarnessCPUShare())
	_, err := io.WriteString(w, b.String())
	return err
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
	_, err := io.WriteString(w, b.String())
	return err
}
