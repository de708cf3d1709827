// Package bisect finds the commit that changed a benchmark, with a
// statistical verdict at every step: first the good and bad ends against
// each other, then the first-parent range searched by measuring each
// midpoint against the two ends it is being placed between. A step's
// verdict is three-way (like good, like bad, not yet known), as in
// Chromium's Pinpoint; revisions that do not build or run are skipped, as
// with `git bisect skip`. The search is pure: a Lab builds and measures,
// a Journal keeps every finished step so that a rerun resumes.
package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/lnbench/lnbench/gitrev"
)

// Verdicts of one comparison, as the reports write them (report.Verdict*).
const (
	Faster  = "faster"
	Slower  = "slower"
	Same    = "same"
	Unknown = "not yet known"
)

// Comparison is a subject revision's metric against another's, measured
// in one run: the ratio of mean iteration times (above 1 is slower), its
// interval, and the run's verdict.
type Comparison struct {
	Ratio float64 `json:"ratio"`
	// Low and High bound Ratio at the level 1-Alpha.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	P    float64 `json:"p"`
	MDE  float64 `json:"mde"`
	// Verdict is the run's (Faster, Slower, Same, Unknown); a step's
	// comparisons are re-read at the step's margin (AtMargin).
	Verdict string `json:"verdict"`
	// Alpha is the level each look of the run tested at: the interval is
	// its 1-Alpha one. An until-known run splits 0.05 over its Looks
	// (Bonferroni), so 5 looks test at 0.01, a 99% interval. 0: not
	// recorded (a journal of an older lnbench).
	Alpha float64 `json:"alpha,omitempty"`
	Looks int     `json:"looks,omitempty"`
	// Margin is the relative change "same" excludes: the run's effect
	// (--effect) as the lab reports it, a step's margin once re-read.
	Margin float64 `json:"margin,omitempty"`
	// Cost is the cost verdict of the same pair in the same run, in one
	// line (report.CostLine): each node's and the chain's CPU ms and syncs
	// per payment against the same actor, launches as the unit, e.g.
	// "bob +2.50 ms CPU per payment (1.36×, 99% CI 1.30–1.42), more; alice
	// same". "" when the run has no cost verdict (no resource samples, or
	// a journal of an older lnbench). Never part of the verdict.
	Cost string `json:"cost,omitempty"`
}

// CI names the comparison's interval at its level, as `lnbench run`'s
// tables do: "99% CI".
func (c Comparison) CI() string { return CILabel(c.Alpha) }

// CILabel names an interval at level 1-alpha ("95% CI"); "CI" when the
// level was not recorded.
func CILabel(alpha float64) string {
	if !(alpha > 0 && alpha < 1) {
		return "CI (level not recorded)"
	}
	return fmt.Sprintf("%.4g%% CI", 100*(1-alpha))
}

// interval is "99% CI 0.981–1.020", the interval labelled at its level.
func (c Comparison) interval() string {
	return fmt.Sprintf("%s %.3f–%.3f", c.CI(), c.Low, c.High)
}

// changed tells whether the comparison shows a change in direction dir.
func (c Comparison) changed(dir string) bool { return c.Verdict == dir }

// logDistance is how far the ratio is from 1 on the log scale.
func (c Comparison) logDistance() float64 {
	if !(c.Ratio > 0) {
		return math.Inf(1)
	}
	return math.Abs(math.Log(c.Ratio))
}

// AtMargin re-reads the comparison at a step's margin m (relative; 0
// leaves it as the run said): Same when the whole interval lies within
// [1/(1+m), 1+m], even if the test also found a change smaller than m;
// else the run's Faster or Slower; else Unknown. The run's own "same"
// is at the comparison effect (--effect, 5%), which says nothing of
// whether a revision is like good or like bad: an ends' effect of 4%
// makes a 5% margin wider than the distance between the ends, one of
// 50% makes it so narrow that no step can be the same as an end.
func (c Comparison) AtMargin(m float64) Comparison {
	if !(m > 0) {
		return c
	}
	c.Margin = m
	switch {
	case c.Low > 0 && c.High > 0 && c.Low >= 1/(1+m) && c.High <= 1+m:
		c.Verdict = Same
	case c.Verdict == Faster || c.Verdict == Slower:
	default:
		c.Verdict = Unknown
	}
	return c
}

// HalfEffect is the margin of a step between two ends whose ratio is
// ratio: half their distance on the log scale, as a relative change
// (√ratio − 1 for a slowdown; bad/good 1.15 gives 7.2%). A revision
// within it of one end is nearer that end than the other.
func HalfEffect(ratio float64) float64 {
	if !(ratio > 0) {
		return 0
	}
	return math.Exp(math.Abs(math.Log(ratio))/2) - 1
}

// Measurement is what one run of revisions (the first the baseline)
// yielded: comparisons by "subject/against" commit ids.
type Measurement struct {
	Ratios map[string]Comparison `json:"ratios"`
	// Launches is the launch rounds the run used (until-known adds some).
	Launches int `json:"launches"`
	// Dir is the run's artifacts folder.
	Dir string `json:"dir,omitempty"`
	// Note is what the lab says of the run (e.g. the cap was reached).
	Note string `json:"note,omitempty"`
}

// Of is the comparison of subject against against.
func (m Measurement) Of(subject, against string) (Comparison, bool) {
	c, ok := m.Ratios[subject+"/"+against]
	return c, ok
}

// Key is the Ratios key of subject against against.
func Key(subject, against string) string { return subject + "/" + against }

// ErrSkip marks a revision the lab could not build or start: the search
// skips it and lists it.
var ErrSkip = errors.New("skipped")

// SkipError is a revision skipped, and why.
type SkipError struct{ Why string }

func (e SkipError) Error() string { return e.Why }
func (e SkipError) Is(target error) bool {
	return target == ErrSkip
}

// Run is one measurement the search asks for: revs with revs[0] as the
// baseline, and what decides that the run may stop adding launches.
type Run struct {
	Revs []gitrev.Commit
	// Direction is what bad is (Slower or Faster) and Margin the step's
	// margin (HalfEffect of its ends); both empty for the ends run.
	Direction string
	Margin    float64
}

// Known tells whether a run's comparisons so far settle its question:
// for the ends, whether bad is faster, slower or the same as good (at
// the run's effect); for a step, whether Classify places the revision
// at the step's margin. A lab adding launches until known asks it.
func (r Run) Known(m Measurement) bool {
	if len(r.Revs) == 2 {
		c, ok := m.Of(r.Revs[1].ID, r.Revs[0].ID)
		return ok && c.Verdict != Unknown
	}
	if len(r.Revs) != 3 {
		return false
	}
	lo, okLo := m.Of(r.Revs[1].ID, r.Revs[0].ID)
	hi, okHi := m.Of(r.Revs[1].ID, r.Revs[2].ID)
	if !okLo || !okHi {
		return false
	}
	class, _, _ := Classify(lo, hi, r.Direction, r.Margin)
	return class != Undecided
}

// Lab builds and measures revisions. Build and Measure return an error
// wrapping ErrSkip for a revision that does not build or whose network
// does not come up; any other error stops the search (an interrupt).
type Lab interface {
	Build(ctx context.Context, c gitrev.Commit) error
	// Measure runs run.Revs with the first as the baseline and returns
	// the comparisons the search asks for: every rev against the first,
	// and the middle of three against the last. A lab that adds launches
	// while the verdict is not yet known stops when run.Known says so.
	Measure(ctx context.Context, run Run) (Measurement, error)
}

// Class is where a step places its revision.
type Class string

const (
	LikeGood Class = "like good"
	LikeBad  Class = "like bad"
	// Between: different from both ends, toward bad: part of the change
	// happened before it and part after (the effect is split).
	Between Class = "between"
	// Undecided: not yet known after the cap; the search went on toward
	// the end the ratio is nearer (Placed), weaker evidence.
	Undecided Class = "not yet known"
	Skipped   Class = "skipped"
)

// Step is one finished step of the search: the revision measured, the
// ends it was placed between, the comparisons and the verdict.
type Step struct {
	Lo      gitrev.Commit `json:"lo"`
	Subject gitrev.Commit `json:"subject"`
	Hi      gitrev.Commit `json:"hi"`
	VsLo    Comparison    `json:"vs_lo"`
	VsHi    Comparison    `json:"vs_hi"`
	Class   Class         `json:"class"`
	// Placed is the side the search continued on (LikeGood or LikeBad;
	// for Between, both).
	Placed Class `json:"placed"`
	// Margin is the step's margin (relative): HalfEffect of the ratio of
	// its ends' levels, so "like good" and "like bad" follow the effect
	// the ends measured, not the comparison effect (--effect).
	Margin   float64 `json:"margin"`
	Launches int     `json:"launches"`
	Dir      string  `json:"dir,omitempty"`
	Note     string  `json:"note,omitempty"`
}

func (s Step) key() string { return stepKey(s.Lo.ID, s.Subject.ID, s.Hi.ID) }

func stepKey(lo, subject, hi string) string { return lo + ".." + subject + ".." + hi }

// EndsKey is the journal key of the good-against-bad run.
func endsKey(good, bad string) string { return good + ".." + bad }

// Ends is the first run: bad against good.
type Ends struct {
	Good       gitrev.Commit `json:"good"`
	Bad        gitrev.Commit `json:"bad"`
	BadVsGood  Comparison    `json:"bad_vs_good"`
	Launches   int           `json:"launches"`
	Dir        string        `json:"dir,omitempty"`
	Threshold  float64       `json:"threshold"`
	Direction  string        `json:"direction,omitempty"` // Slower or Faster: what "bad" is
	Difference bool          `json:"difference"`
	// StepMargin is the margin of a step between good and bad: HalfEffect
	// of BadVsGood.Ratio (0 without a difference).
	StepMargin float64 `json:"step_margin,omitempty"`
	Note       string  `json:"note,omitempty"`
}

// Journal is every finished measurement of a bisect, so that a rerun of
// the same command resumes: the lab is asked only for what it lacks.
type Journal struct {
	Ends   *Ends             `json:"ends,omitempty"`
	Steps  []Step            `json:"steps,omitempty"`
	Skips  map[string]string `json:"skips,omitempty"` // commit id → why
	Builds int               `json:"builds"`          // revisions built (or found built) so far
	// Seconds is the wall time of every command that worked on it.
	Seconds float64 `json:"seconds"`
}

func (j *Journal) step(lo, subject, hi string) (Step, bool) {
	for _, s := range j.Steps {
		if s.key() == stepKey(lo, subject, hi) {
			return s, true
		}
	}
	return Step{}, false
}

// Result is a finished search.
type Result struct {
	Ends Ends `json:"ends"`
	// Culprits are the first bad commits, one per range the effect was
	// found in (two or more when it is split: not monotonic).
	Culprits []Culprit `json:"culprits,omitempty"`
	Steps    []Step    `json:"steps"`
	Skipped  []Skip    `json:"skipped,omitempty"`
	// Revisions is the first-parent range: good, the commits after it, bad last.
	Revisions []gitrev.Commit `json:"revisions"`
	Builds    int             `json:"builds"`
	Runs      int             `json:"runs"`
	Elapsed   string          `json:"elapsed,omitempty"` // wall time of this command (a resumed bisect: since it resumed)
	Notes     []string        `json:"notes,omitempty"`
}

// Culprit is a first bad commit: the earliest revision like bad whose
// first parent is like good. Candidates lists more than one when skipped
// revisions leave the boundary open.
type Culprit struct {
	Commit     gitrev.Commit   `json:"commit"`
	Candidates []gitrev.Commit `json:"candidates,omitempty"`
	LastGood   gitrev.Commit   `json:"last_good"`
}

// Skip is a revision left out, and why.
type Skip struct {
	Commit gitrev.Commit `json:"commit"`
	Why    string        `json:"why"`
}

func fmtPct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
