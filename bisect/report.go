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
	files, err := render(r)
	if err != nil {
		return err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return drawPlot(ctx, dir, log)
}

// render is every file WriteAll writes, by name, but the plot.
func render(r Report) (map[string][]byte, error) {
	var md bytes.Buffer
	if err := WriteText(&md, r); err != nil {
		return nil, err
	}
	js, err := json.MarshalIndent(struct {
		Report
		Evidence []Row `json:"evidence"`
	}{r, Evidence(r.Result)}, "", "  ")
	if err != nil {
		return nil, err
	}
	var csvBuf bytes.Buffer
	if err := writeCSV(&csvBuf, r); err != nil {
		return nil, err
	}
	return map[string][]byte{MarkdownFile: md.Bytes(), JSONFile: append(js, '\n'), CSVFile: csvBuf.Bytes(), RScriptFile: plotR}, nil
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

// csvHeader: ci_low and ci_high bound ratio_to_good at the level ci
// names ("99% CI"); margin is a step's; vs_lo_cost and vs_hi_cost are the
// cost verdicts (Comparison.Cost) against the good end (good itself for
// bad and where direct) and the bad end, last so the columns before keep
// their places.
var csvHeader = []string{"position", "commit", "short", "subject", "author_date", "class", "ratio_to_good", "ci_low", "ci_high", "ci", "direct",
	"vs_lo_ratio", "vs_lo_verdict", "vs_hi_ratio", "vs_hi_verdict", "margin", "launches", "step", "dir", "vs_lo_cost", "vs_hi_cost"}

func writeCSV(w io.Writer, r Report) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(csvHeader)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for _, row := range Evidence(r.Result) {
		rec := []string{strconv.Itoa(row.Position), row.Commit.ID, row.Commit.Short, row.Commit.Subject, row.Commit.AuthorDate.Format(time.RFC3339),
			string(row.Class), "", "", "", "", strconv.FormatBool(row.Direct), "", "", "", "", "", strconv.Itoa(row.Launches), strconv.Itoa(row.Step), row.Dir, "", ""}
		if row.Class != Skipped && row.ToGood > 0 {
			rec[6], rec[7], rec[8], rec[9] = g(row.ToGood), g(row.ToGoodLow), g(row.ToGoodHigh), row.CI
		}
		if row.VsLo != nil {
			rec[11], rec[12], rec[19] = g(row.VsLo.Ratio), row.VsLo.Verdict, row.VsLo.Cost
		}
		if row.VsHi != nil {
			rec[13], rec[14], rec[20] = g(row.VsHi.Ratio), row.VsHi.Verdict, row.VsHi.Cost
		}
		if row.Margin > 0 {
			rec[15] = g(row.Margin)
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
	if e.Good.ID != "" {
		b.WriteString("## How the steps decide\n\n")
		if e.Difference {
			fmt.Fprintf(&b, "- %s\n", marginText(r.Result))
		}
		fmt.Fprintf(&b, "- %s\n\n", errorRateText(r.Result))
	}
	rows := Evidence(r.Result)
	level := oneLevel(rows)
	column := "interval"
	if level != "" {
		column = level
		fmt.Fprintf(&b, "## Evidence\n\nEvery measured revision, in range order. *To good* is the ratio of its metric to good's with its %s: measured in one run with good where marked =, else through the step's good end (×), log half-widths added in quadrature.", level)
	} else {
		b.WriteString("## Evidence\n\nEvery measured revision, in range order. *To good* is the ratio of its metric to good's with its interval, each labelled at its level (the runs tested at different levels): measured in one run with good where marked =, else through the step's good end (×), log half-widths added in quadrature at the lower confidence.")
	}
	b.WriteString(" A step's verdicts against its ends are read at its margin.")
	withCost := hasCost(rows)
	costHead, costAlign := "", ""
	if withCost {
		b.WriteString(" *Cost vs good* is the same run's cost verdict, which never places a revision: each node's and btcd's CPU ms and syncs per payment against the same actor, launches as the unit (paired by round, Holm over the pair's figures); against good where the run measured good, else against the step's good end, named.\n\n")
		costHead, costAlign = " cost vs good |", "---|"
	} else {
		b.WriteString(" No cost verdicts: the runs sampled no resources (ResourceSampling off) or the journal is an older lnbench's.\n\n")
	}
	fmt.Fprintf(&b, "| # | revision | subject | to good | %s |%s verdict | vs good end | vs bad end | margin | launches | step |\n|---:|---|---|---:|---|%s---|---|---|---:|---:|---:|\n", column, costHead, costAlign)
	for _, row := range rows {
		toGood, interval, margin := "", "", ""
		if row.Class != Skipped && row.ToGood > 0 {
			mark := "×"
			if row.Direct {
				mark = "="
			}
			toGood = fmt.Sprintf("%s%.3f", mark, row.ToGood)
			interval = fmt.Sprintf("%.3f–%.3f", row.ToGoodLow, row.ToGoodHigh)
			if level == "" {
				interval = row.CI + " " + interval
			}
		}
		if row.Margin > 0 {
			margin = "±" + fmtPct(row.Margin)
		}
		costCell := ""
		if withCost {
			costCell = " " + escape(costText(r.Result, row)) + " |"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s |%s %s | %s | %s | %s | %d | %s |\n", row.Position, row.Commit.Short, escape(row.Commit.Subject),
			toGood, interval, costCell, verdictCell(row), cmpCell(row.VsLo, row.Class == "bad"), cmpCell(row.VsHi, false), margin, row.Launches, stepCell(row))
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

// hasCost tells whether any measured row has a cost verdict.
func hasCost(rows []Row) bool {
	for _, row := range rows {
		if row.VsLo != nil && row.VsLo.Cost != "" {
			return true
		}
	}
	return false
}

// costText is a row's cell under "cost vs good": its cost verdict against
// good, or against the step's good end named when that is not good; "" for
// good and skipped revisions, "not measured" for a run without one.
func costText(r Result, row Row) string {
	switch {
	case row.VsLo == nil:
		return ""
	case row.VsLo.Cost == "":
		return "not measured"
	case row.Step == 0 || row.Step > len(r.Steps) || r.Steps[row.Step-1].Lo.ID == r.Ends.Good.ID:
		return row.VsLo.Cost
	}
	return "vs " + r.Steps[row.Step-1].Lo.Short + ": " + row.VsLo.Cost
}

// oneLevel is the label every measured row's interval shares ("99% CI"),
// "" when they differ.
func oneLevel(rows []Row) string {
	level := ""
	for _, row := range rows {
		if row.Class == Skipped || !(row.ToGood > 0) {
			continue
		}
		if level != "" && row.CI != level {
			return ""
		}
		level = row.CI
	}
	return level
}

// marginText states how a step's margin follows the ends' effect.
func marginText(r Result) string {
	e := r.Ends
	effect := "the comparison effect (`--effect`)"
	if m := e.BadVsGood.Margin; m > 0 {
		effect = fmt.Sprintf("the comparison effect (%s, `--effect`)", fmtPct(m))
	}
	return fmt.Sprintf("**Margin.** A step places its revision *like good* when its interval against the good end it is placed against lies within ±margin, "+
		"or when it differs significantly from the bad end toward good; *like bad* the other way round; *between* when it differs from both by more than the margin. "+
		"The margin is half the distance of the step's two ends on the log scale, as measured: bad/good %.3f gives ±%s (a revision within it of one end is nearer that end than the other); "+
		"after a *between* revision each half has its own (the margin column). %s decides only whether the ends differ.",
		e.BadVsGood.Ratio, fmtPct(e.StepMargin), capitalize(effect))
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// runAlpha is a run's false-verdict rate over its looks: each look's
// alpha times the looks (0 when not recorded).
func runAlpha(c Comparison) float64 {
	return c.Alpha * float64(max(1, c.Looks))
}

// levelText says at what level a run's comparisons were tested.
func levelText(c Comparison) string {
	switch {
	case !(c.Alpha > 0):
		return "at a level not recorded (a journal of an older lnbench)"
	case c.Looks > 1:
		return fmt.Sprintf("at α = %.3g per look (%s): %.3g split over until-known's %d looks (Bonferroni), so each comparison's interval misses the true ratio at some look with probability at most %.3g",
			c.Alpha, c.CI(), runAlpha(c), c.Looks, runAlpha(c))
	}
	return fmt.Sprintf("at α = %.3g (%s), one look, so each comparison's interval misses the true ratio with probability at most %.3g", c.Alpha, c.CI(), c.Alpha)
}

// errorRateText states the error rate of the ends and of every step
// taken: each run's level, and the Bonferroni bound over the runs.
func errorRateText(r Result) string {
	e := r.Ends
	b := &strings.Builder{}
	fmt.Fprintf(b, "**Error rate.** The ends run tested %s.", levelText(e.BadVsGood))
	if !e.Difference {
		return b.String()
	}
	total, known, same := runAlpha(e.BadVsGood), e.BadVsGood.Alpha > 0, true
	decided, undecided := 0, 0
	for _, st := range r.Steps {
		if st.Class == Undecided {
			undecided++
			continue
		}
		decided++
		a := runAlpha(st.VsLo)
		known = known && st.VsLo.Alpha > 0
		same = same && a == runAlpha(e.BadVsGood)
		total += a
	}
	var others []string
	for _, st := range r.Steps {
		if st.VsLo.Alpha != e.BadVsGood.Alpha || st.VsLo.Looks != e.BadVsGood.Looks {
			others = append(others, fmt.Sprintf("%s %s", st.Subject.Short, levelText(st.VsLo)))
		}
	}
	switch {
	case len(r.Steps) == 0:
	case len(others) == 0:
		b.WriteString(" Each step's comparisons were tested the same way.")
	default:
		fmt.Fprintf(b, " The other steps' comparisons were tested the same way but: %s.", strings.Join(others, "; "))
	}
	b.WriteString(" The ends find a difference where there is none only when their interval misses the true ratio. A step decided by its tests misplaces a revision that is like one of its ends only when one of its two intervals misses the true ratio on the side of the other end, which each does at most half as often, so at most its run's α too.")
	switch {
	case !known:
		fmt.Fprintf(b, " Over the ends and the %d decided step(s) the bound is the sum of the runs' α, not known here: some levels were not recorded.", decided)
	case same:
		fmt.Fprintf(b, " Over the ends and the %d decided step(s) taken, the chance that any of these verdicts is wrong is at most %d × %.3g = %.3g (Bonferroni over the runs).", decided, decided+1, runAlpha(e.BadVsGood), total)
	default:
		fmt.Fprintf(b, " Over the ends and the %d decided step(s) taken, the chance that any of these verdicts is wrong is at most %.3g, the sum of the runs' α (Bonferroni over the runs).", decided, total)
	}
	if undecided > 0 {
		fmt.Fprintf(b, " The %d step(s) placed at the cap by the nearer ratio (not yet known) have no such bound: weaker evidence.", undecided)
	}
	return b.String()
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
