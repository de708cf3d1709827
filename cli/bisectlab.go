package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/bisect"
	"github.com/lnbench/lnbench/buildset"
	"github.com/lnbench/lnbench/gitrev"
	"github.com/lnbench/lnbench/internal/lines"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/nodespec"
	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/result"
	"github.com/lnbench/lnbench/runner"
	"github.com/lnbench/lnbench/runrecord"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage/guard"
)

// lab is bisect's Lab on real nodes: builds through the cache, and each
// measurement a run of the scenario's one case on the revisions' specs in
// the verdict design, until known up to the cap.
type lab struct {
	cmd         *cobra.Command
	stderr      io.Writer
	setup       bisectSetup
	f           runFlags
	images      string
	maxLaunches int
}

// specAt is the clone's spec at commit c, labelled by its short id.
func (l *lab) specAt(c gitrev.Commit) nodespec.Spec {
	sp := l.setup.spec.WithRevision(c.ID)
	sp.Label = c.Short
	return sp
}

func (l *lab) Build(ctx context.Context, c gitrev.Commit) error {
	b, err := buildset.BuildSpec(l.images, l.f.cache, l.specAt(c))
	if err != nil {
		return err
	}
	if _, err := nodebuild.Locate(l.f.cache, b); err == nil {
		return nil
	}
	start := time.Now()
	fmt.Fprintf(l.stderr, "bisect: building %s\n", c)
	r, err := nodebuild.Ensure(ctx, l.f.cache, b, l.stderr)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return bisect.SkipError{Why: "does not build: " + buildFailure(err)}
	}
	fmt.Fprintf(l.stderr, "bisect: built %s in %.0fs (key %s)\n", c.Short, time.Since(start).Seconds(), r.Manifest.Key)
	return nil
}

// buildFailure is what broke in a failed build: the compiler's error when
// a build step printed one, else the error's first line.
func buildFailure(err error) string {
	var ce *nodebuild.CommandError
	if errors.As(err, &ce) && ce.Diagnostic != "" {
		return ce.Diagnostic
	}
	return lines.First(err.Error())
}

// comparisons are the pairs bisect reads of a run of revs: each against
// the first, and the middle of three against the last.
func comparisons(revs []gitrev.Commit) [][2]gitrev.Commit {
	var out [][2]gitrev.Commit
	for _, r := range revs[1:] {
		out = append(out, [2]gitrev.Commit{r, revs[0]})
	}
	if len(revs) == 3 {
		out = append(out, [2]gitrev.Commit{revs[1], revs[2]})
	}
	return out
}

func (l *lab) Measure(ctx context.Context, q bisect.Run) (bisect.Measurement, error) {
	revs := q.Revs
	s := l.setup.scenario
	s.Nodes = nil
	for _, r := range revs {
		s.Nodes = append(s.Nodes, l.specAt(r))
	}
	s.Baseline = revs[0].Short
	s.Compare.UntilKnown, s.Compare.MaxLaunches = true, l.maxLaunches
	if s.Compare.Design == "" && s.Design() == scenario.DefaultDesign {
		// A step asks which end the midpoint is like, not by how much:
		// duet's steadiness serves that best (docs/bisect.md).
		s.Compare.Design = scenario.DesignDuet
	}
	if err := s.Validate(); err != nil {
		return bisect.Measurement{}, err
	}
	if note, err := guard.FitDesign(&s); err != nil {
		return bisect.Measurement{}, err
	} else if note != "" {
		fmt.Fprintln(l.stderr, "bisect: "+note)
	}
	f := l.f
	// The scenario keeps its name (history's series follow it); the folder
	// says which step: runs/<good>-<bad> for the ends, runs/<revision> after.
	step := revs[0].Short + "-" + revs[1].Short
	if len(revs) == 3 {
		step = revs[1].Short
	}
	f.artifacts = filepath.Join(l.setup.out, "runs", step)
	f.yes = true
	pairs := comparisons(revs)
	tweak := func(o *runner.Options) { o.UnknownVerdicts = l.unknownCounter(q, pairs) }
	run, err := executeScenario(l.cmd, io.Discard, l.stderr, s, f, tweak)
	if ctx.Err() != nil {
		return bisect.Measurement{}, ctx.Err()
	}
	m := bisect.Measurement{Ratios: map[string]bisect.Comparison{}, Dir: run.Dir}
	if run.Dir == "" {
		return m, bisect.SkipError{Why: "did not run: " + lines.First(fmt.Sprint(err))}
	}
	// report.Load recomputes the cases from payments.jsonl and each actor's
	// cost per launch from resources.jsonl, so the cost verdicts exist.
	rep, _, lerr := report.Load(run.Dir)
	if lerr != nil {
		return m, bisect.SkipError{Why: "no report: " + lines.First(lerr.Error())}
	}
	if !readRun(rep, l.setup.metric, l.setup.caseKey, pairs, &m) {
		why := "its network did not come up or measured nothing"
		if err != nil {
			why += ": " + lines.First(err.Error())
		}
		return m, bisect.SkipError{Why: why}
	}
	if rep.Design != nil && strings.HasPrefix(rep.Design.Stopped, "cap reached") {
		m.Note = rep.Design.Stopped
	}
	if err != nil {
		m.Note = joinNote(m.Note, "the run ended with: "+lines.First(err.Error()))
	}
	return m, nil
}

// readRun reads every pair of a run's report into m as bisect does: the
// metric's ratio at the run's level and, beside it, the cost verdict of
// the same pair in one line (report.CostLine; "" without resources), and
// the launches used. false when a pair measured nothing.
func readRun(rep report.Report, metric, caseKey string, pairs [][2]gitrev.Commit, m *bisect.Measurement) bool {
	for _, p := range pairs {
		r, ok := report.MetricRatioBetween(rep, metric, p[0].Short, p[1].Short, caseKey)
		if !ok || r.NBase == 0 || r.NNew == 0 {
			return false
		}
		c := comparisonOf(r, rep.Design)
		if vs, ok := report.CostVerdictsBetween(rep, p[0].Short, p[1].Short, caseKey); ok {
			c.Cost = report.CostLine(vs)
		}
		m.Ratios[bisect.Key(p[0].ID, p[1].ID)] = c
		m.Launches = max(m.Launches, r.NNew)
	}
	return true
}

// comparisonOf is a ratio as bisect reads it, with the level its run
// tested at: the design's alpha, split over an until-known run's looks.
func comparisonOf(r report.Ratio, d *runrecord.Design) bisect.Comparison {
	v := r.Verdict
	if v == report.VerdictTooFew {
		v = bisect.Unknown
	}
	c := bisect.Comparison{Ratio: r.Of, Low: r.Low, High: r.High, P: r.P, MDE: r.MDE, Verdict: v,
		Alpha: d.Alpha(report.DefaultAlpha), Looks: 1, Margin: r.Effect}
	if d != nil && d.Looks > 1 {
		c.Looks = d.Looks
	}
	return c
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// unknownCounter is the until-known question of a bisect run: is the
// run's verdict known yet (bisect.Run.Known)? For the ends, whether bad
// differs from good or is the same; for a step, whether Classify places
// the revision at the step's margin.
func (l *lab) unknownCounter(q bisect.Run, pairs [][2]gitrev.Commit) runner.VerdictCounter {
	return func(dir string, m runrecord.Manifest) (int, error) {
		recs, err := result.ReadFile(filepath.Join(dir, runrecord.PaymentsFile))
		if err != nil {
			return 0, fmt.Errorf("reading results: %v", err)
		}
		rep := report.Report{Manifest: m}
		report.Summarize(&rep, recs)
		meas := bisect.Measurement{Ratios: map[string]bisect.Comparison{}}
		for _, p := range pairs {
			r, ok := report.MetricRatioBetween(rep, l.setup.metric, p[0].Short, p[1].Short, l.setup.caseKey)
			if !ok {
				return 1, nil
			}
			meas.Ratios[bisect.Key(p[0].ID, p[1].ID)] = comparisonOf(r, m.Design)
		}
		if q.Known(meas) {
			return 0, nil
		}
		return 1, nil
	}
}

// runBisect checks, searches and reports.
func runBisect(cmd *cobra.Command, stdout, stderr io.Writer, args []string, f bisectFlags) error {
	ctx := cmd.Context()
	setup, err := planBisect(ctx, args, f, stderr)
	if err != nil {
		return err
	}
	images, err := findImages(f.run.images)
	if err != nil {
		return err
	}
	in := bisectInputs{Spec: setup.spec.Text(), Good: setup.revs[0].ID, Bad: setup.revs[len(setup.revs)-1].ID,
		Case: setup.caseKey, Scenario: setup.scenario.Name}
	set := settingsOf(setup)
	if err := os.MkdirAll(setup.out, 0o755); err != nil {
		return fmt.Errorf("--out %s: %v", setup.out, err)
	}
	j, err := loadJournal(setup.out, in, set)
	if err != nil {
		return err
	}
	if j.Ends != nil {
		fmt.Fprintf(stderr, "bisect: resuming from %s (%d step(s) measured)\n", filepath.Join(setup.out, bisectJournalFile), len(j.Steps))
	}
	fmt.Fprintf(stderr, "bisect: %d revisions from good %s to bad %s on %s, case %s; folder %s\n",
		len(setup.revs), setup.revs[0], setup.revs[len(setup.revs)-1], setup.spec.SourceDir(), setup.caseKey, setup.out)
	l := &lab{cmd: cmd, stderr: stderr, setup: setup, f: f.run, images: images, maxLaunches: setup.maxLaunches}
	start, before := time.Now(), j.Seconds
	save := func(j bisect.Journal) error {
		j.Seconds = before + time.Since(start).Seconds()
		return saveJournal(setup.out, in, set, j)
	}
	res, serr := bisect.Search(ctx, setup.revs, l, &j, bisect.Options{Threshold: setup.threshold, Log: stderr, Save: save})
	total := time.Duration((before + time.Since(start).Seconds()) * float64(time.Second)).Round(time.Second)
	res.Elapsed = total.String()
	if before > 0 {
		res.Elapsed += fmt.Sprintf(" (this command %v)", time.Since(start).Round(time.Second))
	}
	if res.Ends.Good.ID == "" { // nothing measured: nothing to report
		return serr
	}
	rep := bisect.Report{Result: res, Clone: setup.spec.SourceDir(), Spec: setup.spec.Text(), Case: setup.caseKey, Metric: setup.metric,
		Scenario: setup.scenario.Name, Command: commandLine(), Interrupted: serr != nil}
	if werr := bisect.WriteAll(ctx, setup.out, rep, stderr); werr != nil {
		serr = errors.Join(serr, werr)
	}
	_ = bisect.WriteText(stdout, rep)
	abs, _ := filepath.Abs(setup.out)
	fmt.Fprintf(stdout, "bisect: %s\n", abs)
	if serr != nil && errors.Is(serr, context.Canceled) {
		return fmt.Errorf("interrupted; every finished step is kept in %s, and the same command resumes: %w", abs, context.Canceled)
	}
	return serr
}

// commandLine is how this bisect was started, for the report.
func commandLine() string {
	out := "lnbench"
	for _, a := range os.Args[1:] {
		out += " " + shellQuote(a)
	}
	return out
}

// shellQuote quotes an argument for a shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
