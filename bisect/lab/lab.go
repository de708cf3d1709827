// Package lab is bisect's Lab on real nodes: it builds each revision
// through the build cache and measures a step as a run of the scenario's
// one case on the revisions' specs, until known up to a cap. How a run is
// started (backend, network flags, output) is the caller's: Run.
package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/lnbench/lnbench/bisect"
	"github.com/lnbench/lnbench/buildset"
	"github.com/lnbench/lnbench/gitrev"
	"github.com/lnbench/lnbench/internal/lines"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/nodespec"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/runner"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage/guard"
)

// RunFunc runs scenario s into the artifacts folder dir as `lnbench run`
// would, with tweak applied to the runner's options, and returns the
// run's folder ("" when nothing ran).
type RunFunc func(ctx context.Context, s scenario.Scenario, dir string, tweak func(*runner.Options)) (string, error)

// Lab implements bisect.Lab.
type Lab struct {
	Spec     nodespec.Spec     // the clone's spec, no revision
	Scenario scenario.Scenario // reduced to the one case bisect measures
	Metric   string            // report.MetricTime or report.MetricP50
	CaseKey  string
	// Out is the bisect's folder; each step's run goes into Out/runs/<step>.
	Out string
	// MaxLaunches caps a step's launch rounds while its verdict is not yet known.
	MaxLaunches   int
	Cache, Images string
	Stderr        io.Writer
	Run           RunFunc
}

// specAt is the clone's spec at commit c, labelled by its short id.
func (l *Lab) specAt(c gitrev.Commit) nodespec.Spec {
	sp := l.Spec.WithRevision(c.ID)
	sp.Label = c.Short
	return sp
}

// Build builds revision c unless the cache has it; a revision that does
// not build is a bisect.SkipError naming what broke.
func (l *Lab) Build(ctx context.Context, c gitrev.Commit) error {
	b, err := buildset.BuildSpec(l.Images, l.Cache, l.specAt(c))
	if err != nil {
		return err
	}
	if _, err := nodebuild.Locate(l.Cache, b); err == nil {
		return nil
	}
	start := time.Now()
	fmt.Fprintf(l.Stderr, "bisect: building %s\n", c)
	r, err := nodebuild.Ensure(ctx, l.Cache, b, l.Stderr)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return bisect.SkipError{Why: "does not build: " + buildFailure(err)}
	}
	fmt.Fprintf(l.Stderr, "bisect: built %s in %.0fs (key %s)\n", c.Short, time.Since(start).Seconds(), r.Manifest.Key)
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

// Comparisons are the pairs bisect reads of a run of revs: each against
// the first, and the middle of three against the last.
func Comparisons(revs []gitrev.Commit) [][2]gitrev.Commit {
	var out [][2]gitrev.Commit
	for _, r := range revs[1:] {
		out = append(out, [2]gitrev.Commit{r, revs[0]})
	}
	if len(revs) == 3 {
		out = append(out, [2]gitrev.Commit{revs[1], revs[2]})
	}
	return out
}

// Measure runs revs (the ends, or an end, the midpoint and the other end)
// until the run's question is known or the cap is reached.
func (l *Lab) Measure(ctx context.Context, q bisect.Run) (bisect.Measurement, error) {
	revs := q.Revs
	s := l.Scenario
	s.Nodes = nil
	for _, r := range revs {
		s.Nodes = append(s.Nodes, l.specAt(r))
	}
	s.Baseline = revs[0].Short
	s.Compare.UntilKnown, s.Compare.MaxLaunches = true, l.MaxLaunches
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
		fmt.Fprintln(l.Stderr, "bisect: "+note)
	}
	// The scenario keeps its name (history's series follow it); the folder
	// says which step: runs/<good>-<bad> for the ends, runs/<revision> after.
	step := revs[0].Short + "-" + revs[1].Short
	if len(revs) == 3 {
		step = revs[1].Short
	}
	pairs := Comparisons(revs)
	tweak := func(o *runner.Options) { o.UnknownVerdicts = l.unknownCounter(q, pairs) }
	dir, err := l.Run(ctx, s, filepath.Join(l.Out, "runs", step), tweak)
	if ctx.Err() != nil {
		return bisect.Measurement{}, ctx.Err()
	}
	m := bisect.Measurement{Ratios: map[string]bisect.Comparison{}, Dir: dir}
	if dir == "" {
		return m, bisect.SkipError{Why: "did not run: " + lines.First(fmt.Sprint(err))}
	}
	// report.Load recomputes the cases from payments.jsonl and each actor's
	// cost per launch from resources.jsonl, so the cost verdicts exist.
	rep, _, lerr := report.Load(dir)
	if lerr != nil {
		return m, bisect.SkipError{Why: "no report: " + lines.First(lerr.Error())}
	}
	if !readRun(rep, l.Metric, l.CaseKey, pairs, &m) {
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
func comparisonOf(r report.Ratio, d *record.Design) bisect.Comparison {
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
func (l *Lab) unknownCounter(q bisect.Run, pairs [][2]gitrev.Commit) runner.VerdictCounter {
	return func(recs []result.Record, m record.Manifest) (int, error) {
		rep := report.Report{Manifest: m}
		report.Summarize(&rep, recs)
		meas := bisect.Measurement{Ratios: map[string]bisect.Comparison{}}
		for _, p := range pairs {
			r, ok := report.MetricRatioBetween(rep, l.Metric, p[0].Short, p[1].Short, l.CaseKey)
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
