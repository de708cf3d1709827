package bisect

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lnbench/lnbench/gitrev"
	"github.com/lnbench/lnbench/internal/rscript"
)

// Report is a bisect's outcome with what it was asked.
type Report struct {
	Result
	Command  string `json:"command"`
	Clone    string `json:"clone"`
	Spec     string `json:"spec"`
	Scenario string `json:"scenario"`
	Case     string `json:"case"`
	// Metric is "time" (mean iteration time) or "p50" (median latency).
	Metric      string `json:"metric,omitempty"`
	Interrupted bool   `json:"interrupted,omitempty"`
}

// Files a bisect writes into its folder.
const (
	MarkdownFile = "bisect.md"
	CSVFile      = "bisect.csv"
	JSONFile     = "bisect.json"
	RScriptFile  = "bisect.R"
	PlotFile     = "bisect.png"
)

//go:embed bisect.R
var plotR []byte

// WriteAll writes the markdown, CSV, JSON and R script into dir and draws
// the plot when Rscript is there (said on log when it is not).
func WriteAll(ctx context.Context, dir string, r Report, log io.Writer) error {
	var md bytes.Buffer
	if err := WriteText(&md, r); err != nil {
		return err
	}
	js, err := json.MarshalIndent(struct {
		Report
		Evidence []Row `json:"evidence"`
	}{r, Evidence(r.Result)}, "", "  ")
	if err != nil {
		return err
	}
	var csvBuf bytes.Buffer
	if err := writeCSV(&csvBuf, r); err != nil {
		return err
	}
	for name, data := range map[string][]byte{MarkdownFile: md.Bytes(), JSONFile: append(js, '\n'), CSVFile: csvBuf.Bytes(), RScriptFile: plotR} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return drawPlot(ctx, dir, log)
}

func drawPlot(ctx context.Context, dir string, log io.Writer) error {
	err := rscript.Run(ctx, dir, RScriptFile, PlotFile)
	if errors.Is(err, rscript.ErrNoR) {
		fmt.Fprintf(log, "bisect: %v; then Rscript %s in the folder\n", err, RScriptFile)
		return nil
	}
	if err != nil {
		return fmt.Errorf("bisect plot: %v", err)
	}
	return nil
}

var csvHeader = []string{"position", "commit", "short", "subject", "author_date", "class", "ratio_to_good", "low", "high", "direct",
	"vs_lo_ratio", "vs_lo_verdict", "vs_hi_ratio", "vs_hi_verdict", "launches", "step", "dir"}

func writeCSV(w io.Writer, r Report) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(csvHeader)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for _, row := range Evidence(r.Result) {
		rec := []string{strconv.Itoa(row.Position), row.Commit.ID, row.Commit.Short, row.Commit.Subject, row.Commit.AuthorDate.Format(time.RFC3339),
			string(row.Class), "", "", "", strconv.FormatBool(row.Direct), "", "", "", "", strconv.Itoa(row.Launches), strconv.Itoa(row.Step), row.Dir}
		if row.Class != Skipped && row.ToGood > 0 {
			rec[6], rec[7], rec[8] = g(row.ToGood), g(row.ToGoodLow), g(row.ToGoodHigh)
		}
		if row.VsLo != nil {
			rec[10], rec[11] = g(row.VsLo.Ratio), row.VsLo.Verdict
		}
		if row.VsHi != nil {
			rec[12], rec[13] = g(row.VsHi.Ratio), row.VsHi.Verdict
		}
		_ = cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// WriteText is the markdown summary, read on a terminal as well.
func WriteText(w io.Writer, r Report) error {
	var b strings.Builder
	e := r.Ends
	fmt.Fprintf(&b, "# Bisect: %s, case %s\n\n", r.Scenario, r.Case)
	fmt.Fprintf(&b, "- Clone: %s (%s)\n", r.Clone, r.Spec)
	fmt.Fprintf(&b, "- Range: good %s .. bad %s, %d revisions on bad's first-parent line\n", commitText(e.Good), commitText(e.Bad), len(r.Revisions))
	if r.Metric == "p50" {
		fmt.Fprintf(&b, "- Metric: median payment latency per launch (ratio above 1 is slower)\n")
	} else {
		fmt.Fprintf(&b, "- Metric: mean iteration time (ratio above 1 is slower, i.e. fewer payments/s)\n")
	}
	if r.Command != "" {
		fmt.Fprintf(&b, "- Command: `%s`\n", r.Command)
	}
	fmt.Fprintf(&b, "- Cost: %d build(s) of revisions, %d run(s), %s\n\n", r.Builds, r.Runs, r.Elapsed)
	b.WriteString("## Verdict\n\n")
	switch {
	case r.Interrupted:
		fmt.Fprintf(&b, "Interrupted after %d step(s): the same command resumes from them.\n\n", len(r.Steps))
	case !e.Difference:
		fmt.Fprintf(&b, "No commit named: %s.\n\n", e.Note)
	case len(r.Culprits) == 1:
		writeCulprit(&b, "First bad commit", r.Culprits[0])
	default:
		fmt.Fprintf(&b, "The change is not monotonic: it appears in %d places; each is named.\n\n", len(r.Culprits))
		for i, c := range r.Culprits {
			writeCulprit(&b, fmt.Sprintf("Candidate %d", i+1), c)
		}
	}
	if e.Note != "" && e.Difference {
		fmt.Fprintf(&b, "Good against bad: %s (%d launches per revision).\n\n", e.Note, e.Launches)
	}
	b.WriteString("## Evidence\n\nEvery measured revision, in range order. *To good* is the ratio of its metric to good's with its 95% interval: measured in one run with good where marked =, else through the step's good end (×).\n\n")
	b.WriteString("| # | revision | subject | to good | interval | verdict | vs good end | vs bad end | launches | step |\n|---:|---|---|---:|---|---|---|---|---:|---:|\n")
	for _, row := range Evidence(r.Result) {
		toGood, interval := "", ""
		if row.Class != Skipped && row.ToGood > 0 {
			mark := "×"
			if row.Direct {
				mark = "="
			}
			toGood = fmt.Sprintf("%s%.3f", mark, row.ToGood)
			interval = fmt.Sprintf("%.3f–%.3f", row.ToGoodLow, row.ToGoodHigh)
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s | %d | %s |\n", row.Position, row.Commit.Short, escape(row.Commit.Subject),
			toGood, interval, verdictCell(row), cmpCell(row.VsLo, row.Class == "bad"), cmpCell(row.VsHi, false), row.Launches, stepCell(row))
	}
	b.WriteString("\n")
	if len(r.Skipped) > 0 {
		b.WriteString("## Skipped\n\n")
		for _, s := range r.Skipped {
			fmt.Fprintf(&b, "- %s %s: %s\n", s.Commit.Short, escape(s.Commit.Subject), s.Why)
		}
		b.WriteString("\n")
	}
	var notes []string
	notes = append(notes, r.Notes...)
	for _, s := range r.Steps {
		if s.Note != "" {
			notes = append(notes, s.Subject.Short+": "+s.Note)
		}
	}
	if len(notes) > 0 {
		b.WriteString("## Notes\n\n")
		for _, n := range notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
		b.WriteString("\n")
	}
	b.WriteString("Each step's artifacts folder (`lnbench report DIR`) is in the Evidence's JSON and CSV (dir).\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeCulprit(b *strings.Builder, title string, c Culprit) {
	fmt.Fprintf(b, "**%s: %s %s**  \n%s, authored %s by %s; the last good revision is %s.\n\n", title, c.Commit.Short, escape(c.Commit.Subject),
		c.Commit.ID, c.Commit.AuthorDate.Format("2006-01-02 15:04 -0700"), escape(c.Commit.Author), commitText(c.LastGood))
	if len(c.Candidates) > 1 {
		var ids []string
		for _, x := range c.Candidates {
			ids = append(ids, x.Short)
		}
		fmt.Fprintf(b, "Skipped revisions leave the boundary open: the first bad commit is one of %s.\n\n", strings.Join(ids, ", "))
	}
}

func commitText(c gitrev.Commit) string { return "`" + c.String() + "`" }

func verdictCell(r Row) string {
	switch r.Class {
	case "good", "bad":
		return string(r.Class) + " end"
	}
	return string(r.Class)
}

func cmpCell(c *Comparison, endsRun bool) string {
	if c == nil || endsRun {
		return ""
	}
	return fmt.Sprintf("%.3f %s", c.Ratio, c.Verdict)
}

func stepCell(r Row) string {
	if r.Class == Skipped {
		return ""
	}
	if r.Step == 0 {
		return "ends"
	}
	return strconv.Itoa(r.Step)
}

func escape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
