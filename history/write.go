package history

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/csv"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lnbench/lnbench/internal/rscript"
)

// Files `lnbench history` writes into its output folder. history.csv is
// the index: every point, rebuilt from the artifacts folders each time
// (never the only copy of anything).
const (
	CSVFile      = "history.csv"
	MarkdownFile = "history.md"
	HTMLFile     = "history.html"
	RScriptFile  = "history.R"
	PlotFile     = "history.png"
)

//go:embed history.R
var plotR []byte

// Report is the series with how they were read.
type Report struct {
	Root        string   `json:"root"`
	Series      []Series `json:"series"`
	Skipped     []string `json:"skipped,omitempty"`
	MixMachines bool     `json:"mix_machines,omitempty"`
	Machines    []string `json:"machines"` // "fingerprint: what it hashes"
}

// NewReport builds the series of points.
func NewReport(root string, points []Point, skipped []string, opts Options) Report {
	r := Report{Root: root, Series: Build(points, opts), Skipped: skipped, MixMachines: opts.MixMachines}
	seen := map[string]bool{}
	for _, p := range points {
		if !seen[p.Machine] {
			seen[p.Machine] = true
			r.Machines = append(r.Machines, p.Machine+": "+p.MachineText)
		}
	}
	return r
}

// WriteAll writes the index CSV, markdown, HTML and R script into dir and
// draws the plot when Rscript is there.
func WriteAll(ctx context.Context, dir string, r Report, log io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var md, csvBuf bytes.Buffer
	WriteMarkdown(&md, r)
	if err := writeCSV(&csvBuf, r); err != nil {
		return err
	}
	files := map[string][]byte{MarkdownFile: md.Bytes(), CSVFile: csvBuf.Bytes(), RScriptFile: plotR}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	plotted := drawPlot(ctx, dir, log)
	return os.WriteFile(filepath.Join(dir, HTMLFile), htmlOf(r, md.String(), plotted), 0o644)
}

func drawPlot(ctx context.Context, dir string, log io.Writer) bool {
	if err := rscript.Run(ctx, dir, RScriptFile, PlotFile); err != nil {
		fmt.Fprintf(log, "history: %v\n", err)
		return false
	}
	return true
}

var csvHeader = []string{"series", "scenario", "case", "build", "machine", "order", "position", "run_id", "started", "dir", "label",
	"commit", "subject", "payments_per_sec", "mean_s", "control", "vs_control", "value", "metric", "change_here", "change_kind",
	"disk_syncs_per_sec", "outside_cores", "steal_share"}

func writeCSV(w io.Writer, r Report) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(csvHeader)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for si, s := range r.Series {
		kinds := map[int]string{}
		for _, c := range s.Changes {
			kinds[c.Index] = c.Kind
		}
		for i, p := range s.Points {
			kind, here := kinds[i]
			_ = cw.Write([]string{strconv.Itoa(si + 1), s.Scenario, s.Case, s.Build, p.Machine, s.Order, strconv.Itoa(i), p.RunID,
				p.Started.UTC().Format(time.RFC3339), p.Dir, p.Label, p.Commit, p.Subject, g(p.PaymentsPerSec), g(p.MeanSeconds),
				p.Control, g(p.VsControl), g(s.Value(p)), s.Metric, strconv.FormatBool(here), kind,
				g(p.Env.DiskSyncsPerSec), g(p.Env.OutsideCores), g(p.Env.StealShare)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteMarkdown is the history as markdown (also the terminal's text).
func WriteMarkdown(w io.Writer, r Report) {
	fmt.Fprintf(w, "# History of %s\n\n", r.Root)
	if r.MixMachines {
		fmt.Fprintln(w, "Machines are mixed (--mix-machines): a series holds runs of every machine below.")
	} else {
		fmt.Fprintln(w, "Each series is one machine's: runs of different machines are never mixed (--mix-machines to mix them).")
	}
	fmt.Fprintln(w)
	for _, m := range r.Machines {
		fmt.Fprintf(w, "- machine %s\n", m)
	}
	fmt.Fprintf(w, "\nChange points: E-divisive means (Matteson and James 2014) with a permutation test of the maximal split; a change needs p < α and a shift of at least 2%%. On a series without a change the chance of any change point is at most α; each later test of a series is one more chance (Tests).\n\n")
	for i, s := range r.Series {
		fmt.Fprintf(w, "## %d. %s, %s\n\n", i+1, s.Scenario, s.Case)
		fmt.Fprintf(w, "Build %s; machine %s; %d point(s) ordered by %s; metric %s; %d test(s) at α = %g.\n\n", s.Build, orAll(s.Machine), len(s.Points), s.Order, s.Metric, s.Tests, s.Alpha)
		for _, n := range s.Notes {
			fmt.Fprintf(w, "- note: %s\n", n)
		}
		if len(s.Changes) == 0 {
			fmt.Fprintln(w, "No change point.")
		}
		for _, c := range s.Changes {
			fmt.Fprintf(w, "- **%s change** at point %d: %.4g → %.4g (%+.1f%%, p = %.3f), between %s and %s", c.Kind, c.Index, c.Before, c.After, 100*c.Shift, c.P, pointName(c.Last), pointName(c.First))
			if c.Why != "" {
				fmt.Fprintf(w, "; the machine moved: %s", c.Why)
			}
			fmt.Fprintln(w)
			if c.Bisect != "" {
				fmt.Fprintf(w, "  - find the commit: `%s`\n", c.Bisect)
			}
		}
		fmt.Fprintf(w, "\n| # | run | build | payments/s | %s | disk syncs/s | outside cores | steal |\n|---:|---|---|---:|---:|---:|---:|---:|\n", valueHeader(s))
		change := map[int]bool{}
		for _, c := range s.Changes {
			change[c.Index] = true
		}
		for j, p := range s.Points {
			mark := ""
			if change[j] {
				mark = " ◀ change"
			}
			fmt.Fprintf(w, "| %d | %s | %s | %.2f | %.4g%s | %s | %s | %s |\n", j, p.RunID, pointName(p), p.PaymentsPerSec, s.Value(p), mark,
				reading(p.Env.DiskSyncsPerSec, "%.0f", false), reading(p.Env.OutsideCores, "%.2f", true), reading(100*p.Env.StealShare, "%.1f%%", true))
		}
		fmt.Fprintln(w)
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintln(w, "## Folders not read")
		fmt.Fprintln(w)
		for _, s := range r.Skipped {
			fmt.Fprintf(w, "- %s\n", s)
		}
	}
}

func valueHeader(s Series) string {
	if s.relative() {
		return "vs control"
	}
	return "value"
}

func reading(v float64, format string, negativeUnmeasured bool) string {
	if (negativeUnmeasured && v < 0) || (!negativeUnmeasured && v == 0) {
		return "–"
	}
	return fmt.Sprintf(format, v)
}

func orAll(m string) string {
	if m == "" {
		return "all"
	}
	return m
}

// pointName names a point's build: its commit and subject, else its label.
func pointName(p Point) string {
	if p.Commit != "" {
		name := p.Commit[:min(7, len(p.Commit))]
		if p.Subject != "" {
			name += " " + p.Subject
		}
		return name
	}
	return p.Label
}

func htmlOf(r Report, md string, plotted bool) []byte {
	var b strings.Builder
	b.WriteString("<!doctype html><meta charset=utf-8><title>lnbench history</title><style>body{font-family:sans-serif;max-width:70em;margin:auto}pre{white-space:pre-wrap}</style>\n")
	fmt.Fprintf(&b, "<h1>History of %s</h1>\n", html.EscapeString(r.Root))
	if plotted {
		fmt.Fprintf(&b, "<p><img src=%q alt=\"the series over their runs\" style=\"max-width:100%%\"></p>\n", PlotFile)
	}
	// The markdown is the one model; the page shows it as written.
	fmt.Fprintf(&b, "<pre>%s</pre>\n", html.EscapeString(md))
	return []byte(b.String())
}
