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
	Ratio   float64 `json:"ratio"`
	Low     float64 `json:"low"`
	High    float64 `json:"high"`
	P       float64 `json:"p"`
	MDE     float64 `json:"mde"`
	Verdict string  `json:"verdict"`
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

// Lab builds and measures revisions. Build and Measure return an error
// wrapping ErrSkip for a revision that does not build or whose network
// does not come up; any other error stops the search (an interrupt).
type Lab interface {
	Build(ctx context.Context, c gitrev.Commit) error
	// Measure runs revs with revs[0] as the baseline and returns the
	// comparisons the search asks for: every rev against revs[0], and
	// the middle of three against the last.
	Measure(ctx context.Context, revs []gitrev.Commit) (Measurement, error)
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
	Placed   Class  `json:"placed"`
	Launches int    `json:"launches"`
	Dir      string `json:"dir,omitempty"`
	Note     string `json:"note,omitempty"`
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
	Note       string        `json:"note,omitempty"`
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
