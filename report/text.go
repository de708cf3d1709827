package report

import (
	"fmt"
	"io"
	"strings"
)

// Text writes what a terminal shows after a run: the head (environment and
// table, without the legend), the verdicts, and one line per case for
// resources and faults; the full sections are in summary.md.
func Text(w io.Writer, r Report) error {
	var b strings.Builder
	secs := []Section{headSection(r), withoutTables(verdictsSection(r)), resourceVerdictsSection(r), caseFaultsSection(r)}
	first := true
	for _, s := range secs {
		if len(s.Blocks) == 0 {
			continue
		}
		writeTextSection(&b, s, first)
		first = false
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// withoutTables drops a section's tables: the verdicts' lines already say
// on a terminal what the cost table details in the files.
func withoutTables(s Section) Section {
	var bs []Block
	for _, b := range s.Blocks {
		if b.Table == nil {
			bs = append(bs, b)
		}
	}
	s.Blocks = bs
	return s
}

// writeTextSection writes a titled section as "Title:" with its lines
// indented under it, blocks apart by a blank line; legends, page-only
// blocks and figures are left to the files.
func writeTextSection(b *strings.Builder, s Section, first bool) {
	indent := ""
	if s.Title != "" {
		if !first {
			b.WriteString("\n")
		}
		b.WriteString(s.Title + ":\n")
		indent = "  "
	}
	lines := func(ls []string) {
		for _, l := range ls {
			b.WriteString(indent + l + "\n")
		}
	}
	n := 0
	for _, bl := range s.Blocks {
		if bl.PageOnly || bl.Figures != nil || bl.Legend != nil {
			continue
		}
		if n > 0 {
			b.WriteString("\n")
		}
		n++
		switch {
		case bl.Heading != "":
			lines([]string{bl.Heading + ":"})
		case bl.Table != nil:
			lines(alignedTable(*bl.Table))
		case bl.Bullets != nil:
			lines(bl.Bullets)
		case bl.Pre != nil:
			lines(bl.Pre)
		case bl.Timeline != nil:
			lines(bl.Timeline.sparkline())
		default:
			lines(strings.Split(bl.Text, "\n"))
		}
	}
}

// alignedTable pads the columns to their widest cell, the names left and
// the figures right, without markdown's pipes at the ends.
func alignedTable(t Table) []string {
	widths := make([]int, len(t.Header))
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		for i, c := range row {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	line := func(cells []string) string {
		var b strings.Builder
		for i, c := range cells {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if i == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(" | " + pad + c)
			}
		}
		return b.String()
	}
	sep := make([]string, len(widths))
	for i, wd := range widths {
		sep[i] = strings.Repeat("-", wd)
	}
	out := []string{line(t.Header), line(sep)}
	for _, row := range t.Rows {
		out = append(out, line(row))
	}
	return out
}

// resourceVerdictsSection is each case's bottleneck verdict, sync ceiling
// and harness share, and the sampling overhead: the terminal's short form
// of the Resources and Sampling overhead sections.
func resourceVerdictsSection(r Report) Section {
	s := Section{Title: "Resources"}
	var lines []string
	for _, c := range r.Resources {
		if len(c.Actors) == 0 {
			continue
		}
		lines = append(lines, fmt.Sprintf("%s: %s", c.ID, c.Verdict.Text))
		if cl := c.Ceiling; cl != nil {
			lines = append(lines, fmt.Sprintf("%s: sync ceiling %.1f payments/s (%s), measured %.2f", c.ID, cl.PaymentsPerSec, cl.Storage, cl.Measured))
		}
		if c.HasHarnessShare {
			proxy := ""
			if c.ProxyShare > 0 {
				proxy = fmt.Sprintf(" (docker-proxy %.2f%% of it)", 100*c.ProxyShare)
			}
			lines = append(lines, fmt.Sprintf("%s: harness CPU %.2f%% of the nodes'%s", c.ID, 100*c.HarnessShare, proxy))
		}
	}
	for _, o := range r.SamplingOverhead {
		lines = append(lines, "sampling overhead, "+OverheadLine(o))
	}
	if len(lines) > 0 {
		s.Blocks = []Block{{Pre: lines}}
	}
	return s
}

// caseFaultsSection is one line per injected fault, named by its case:
// the terminal's short form of the Faults section.
func caseFaultsSection(r Report) Section {
	s := Section{Title: "Faults"}
	if len(r.Faults) == 0 {
		return s
	}
	var lines []string
	for _, c := range r.Cases {
		for _, l := range CaseFaultLines(r, c.ID) {
			lines = append(lines, c.ID+": "+l)
		}
	}
	if len(lines) > 0 {
		s.Blocks = []Block{{Pre: lines}}
	}
	return s
}
