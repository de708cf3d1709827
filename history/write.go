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

var csvHeader = []string{"series", "series_name", "scenario", "case", "build", "design", "networks", "machine", "order", "position",
	"run_id", "started", "dir", "label", "commit", "subject", "payments_per_sec", "mean_s", "p50_ms", "control", "vs_control", "p50_vs_control",
	"value", "metric", "change_here", "change_kind", "latency_value", "latency_metric", "latency_change_here", "latency_change_kind",
	"disk_syncs_per_sec", "outside_cores", "steal_share"}

// writeCSV writes one row per point, series after series in the report's
// order (the plot's panels follow it): each row has both tracks' value,
// metric and change mark.
func writeCSV(w io.Writer, r Report) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(csvHeader)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for si, s := range r.Series {
		kinds := [2]map[int]string{changeKinds(s.Throughput), changeKinds(s.Latency)}
		name := fmt.Sprintf("%d. %s", si+1, s.Name())
		for i, p := range s.Points {
			kind, here := kinds[0][i]
			lkind, lhere := kinds[1][i]
			_ = cw.Write([]string{strconv.Itoa(si + 1), name, s.Scenario, s.Case, s.Build, s.Design, strconv.Itoa(s.Networks), p.Machine, s.Order, strconv.Itoa(i),
				p.RunID, p.Started.UTC().Format(time.RFC3339), p.Dir, p.Label, p.Commit, p.Subject, g(p.PaymentsPerSec), g(p.MeanSeconds), g(p.P50Ms),
				p.Control, g(p.VsControl), g(p.P50VsControl),
				g(s.Throughput.Value(p)), s.Throughput.Metric, strconv.FormatBool(here), kind,
				g(s.Latency.Value(p)), s.Latency.Metric, strconv.FormatBool(lhere), lkind,
				g(p.Env.DiskSyncsPerSec), g(p.Env.OutsideCores), g(p.Env.StealShare)})
		}
	}
	cw.Flush()
	return cw.Error()
}

func changeKinds(t Track) map[int]string {
	kinds := map[int]string{}
	for _, c := range t.Changes {
		kinds[c.Index] = c.Kind
	}
	return kinds
}

// WriteMarkdown is the history as markdown (also the terminal's text).
func WriteMarkdown(w io.Writer, r Report) {
	fmt.Fprintf(w, "# History of %s\n\n", r.Root)
	if r.MixMachines {
		fmt.Fprintln(w, "Machines are mixed (--mix-machines): a series holds runs of every machine below.")
	} else {
		fmt.Fprintln(w, "Each series is one machine's: runs of different machines are never mixed (--mix-machines to mix them).")
	}
	fmt.Fprintln(w, "Runs of different designs are never mixed either: a duet measures its networks at once, each on part of the machine, so its payments/s is not a single run's.")
	fmt.Fprintln(w)
	for _, m := range r.Machines {
		fmt.Fprintf(w, "- machine %s\n", m)
	}
	fmt.Fprintf(w, "\nChange points, on payments/s and on the median payment latency (p50) of each series: E-divisive means (Matteson and James 2014) with a permutation test of the maximal split; a change needs p below its level and a shift of at least 2%%. On a series without a change the chance of any change point is at most α per figure; each side of a change is tested at half the level of the segment it came from.\n\n")
	for i, s := range r.Series {
		fmt.Fprintf(w, "## %d. %s\n\n", i+1, s.Name())
		fmt.Fprintf(w, "Scenario %s, case %s; build %s; design: %s; machine %s; %d point(s) ordered by %s; α = %g.\n\n", s.Scenario, s.Case, s.Build, s.Setup(), orAll(s.Machine), len(s.Points), s.Order, s.Alpha)
		for _, n := range s.Notes {
			fmt.Fprintf(w, "- note: %s\n", n)
		}
		if len(s.Notes) > 0 {
			fmt.Fprintln(w)
		}
		for _, t := range s.Tracks() {
			writeTrack(w, t)
		}
		writeTable(w, s)
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintln(w, "## Folders not read")
		fmt.Fprintln(w)
		for _, s := range r.Skipped {
			fmt.Fprintf(w, "- %s\n", s)
		}
	}
}

func writeTrack(w io.Writer, t Track) {
	fmt.Fprintf(w, "%s: ", t.Metric)
	if len(t.Changes) == 0 {
		fmt.Fprintf(w, "no change point (%d test(s)).\n\n", t.Tests)
		return
	}
	fmt.Fprintf(w, "%d change point(s) (%d test(s)).\n\n", len(t.Changes), t.Tests)
	for _, c := range t.Changes {
		way := "better"
		if t.Worse(c.Shift) {
			way = "worse"
		}
		fmt.Fprintf(w, "- **%s change** at point %d: %.4g → %.4g (%+.1f%%, %s; p = %.3f at level %.3g), between %s and %s", c.Kind, c.Index, c.Before, c.After, 100*c.Shift, way, c.P, c.Level, pointName(c.Last), pointName(c.First))
		if c.Why != "" {
			fmt.Fprintf(w, "; the machine moved: %s", c.Why)
		}
		fmt.Fprintln(w)
		if c.Bisect != "" {
			fmt.Fprintf(w, "  - find the commit: `%s`\n", c.Bisect)
		}
	}
	fmt.Fprintln(w)
}

func writeTable(w io.Writer, s Series) {
	tp, lt := s.Throughput, s.Latency
	head := "| # | run | build | payments/s |"
	align := "|---:|---|---|---:|"
	if tp.Relative {
		head += " vs control |"
		align += "---:|"
	}
	head += " p50 ms |"
	align += "---:|"
	if lt.Relative {
		head += " p50 vs control |"
		align += "---:|"
	}
	fmt.Fprintf(w, "%s disk syncs/s | outside cores | steal |\n%s---:|---:|---:|\n", head, align)
	kinds := [2]map[int]string{changeKinds(tp), changeKinds(lt)}
	for j, p := range s.Points {
		mark := func(k int) string {
			if _, ok := kinds[k][j]; ok {
				return " ◀ change"
			}
			return ""
		}
		row := fmt.Sprintf("| %d | %s | %s |", j, p.RunID, pointName(p))
		if tp.Relative {
			row += fmt.Sprintf(" %.2f | %.4g%s |", p.PaymentsPerSec, p.VsControl, mark(0))
		} else {
			row += fmt.Sprintf(" %.2f%s |", p.PaymentsPerSec, mark(0))
		}
		if lt.Relative {
			row += fmt.Sprintf(" %.1f | %.4g%s |", p.P50Ms, p.P50VsControl, mark(1))
		} else {
			row += fmt.Sprintf(" %.1f%s |", p.P50Ms, mark(1))
		}
		fmt.Fprintf(w, "%s %s | %s | %s |\n", row, reading(p.Env.DiskSyncsPerSec, "%.0f", false), reading(p.Env.OutsideCores, "%.2f", true), reading(100*p.Env.StealShare, "%.1f%%", true))
	}
	fmt.Fprintln(w)
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
