package bisect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"time"

	"github.com/lnbench/lnbench/gitrev"
)

// Options steer a search.
type Options struct {
	// Threshold is the smallest change worth a search (relative, e.g.
	// 0.05); 0 takes the MDE the good-against-bad run measured.
	Threshold float64
	// Save is called with the journal after every finished measurement
	// or skip, so that an interrupted search resumes from it.
	Save func(Journal) error
	// Log receives progress lines (nil: none).
	Log io.Writer
	// Now is the clock of the progress lines (nil: time.Now).
	Now func() time.Time
}

// Search finds the first bad commit of revs (good first, bad last, the
// first-parent range between them) with lab, resuming from j. On an error
// that is not a skip (an interrupt), the result so far comes back with it,
// and j holds every finished measurement.
func Search(ctx context.Context, revs []gitrev.Commit, lab Lab, j *Journal, opts Options) (Result, error) {
	if len(revs) < 2 {
		return Result{}, errors.New("bisect needs a good and a later bad revision")
	}
	s := &search{revs: revs, lab: lab, j: j, opts: opts, start: opts.now(), level: map[int]float64{}}
	if j.Skips == nil {
		j.Skips = map[string]string{}
	}
	res := Result{Revisions: revs}
	ends, err := s.ends(ctx)
	if err != nil {
		return s.result(res), err
	}
	res.Ends = ends
	if !ends.Difference {
		return s.result(res), nil
	}
	s.level[0], s.level[len(revs)-1] = 0, math.Log(ends.BadVsGood.Ratio)
	// Each range has a like-good low end and a like-bad high end; a
	// "between" step splits its range in two, both searched.
	ranges := [][2]int{{0, len(revs) - 1}}
	for len(ranges) > 0 {
		lo, hi := ranges[0][0], ranges[0][1]
		ranges = ranges[1:]
		for hi-lo > 1 {
			mid, ok := s.pick(lo, hi)
			if !ok {
				break // every revision inside is skipped
			}
			step, err := s.step(ctx, lo, mid, hi)
			if errors.Is(err, ErrSkip) {
				continue
			}
			if err != nil {
				return s.result(res), err
			}
			switch step.Placed {
			case LikeGood:
				s.level[mid] = s.level[lo]
				lo = mid
			case LikeBad:
				s.level[mid] = s.level[hi]
				hi = mid
			case Between:
				// Its own level: the mean of what the run measured
				// through either end.
				s.level[mid] = (s.level[lo] + math.Log(step.VsLo.Ratio) + s.level[hi] + math.Log(step.VsHi.Ratio)) / 2
				ranges = append(ranges, [2]int{mid, hi})
				hi = mid
			}
		}
		res.Culprits = append(res.Culprits, s.culprit(lo, hi))
	}
	if len(res.Culprits) > 1 {
		res.Notes = append(res.Notes, fmt.Sprintf("not monotonic: the change appears in %d places of the range; each first bad commit is named", len(res.Culprits)))
	}
	return s.result(res), nil
}

type search struct {
	revs  []gitrev.Commit
	lab   Lab
	j     *Journal
	opts  Options
	start time.Time
	// level is each placed revision's log ratio to good: 0 for good and
	// what is like it, the ends' measured log ratio for bad and what is
	// like it, a between revision's own measured level.
	level map[int]float64
}

// margin is the margin of a step between revs[lo] and revs[hi]: half
// the distance of their levels on the log scale, as a relative change.
func (s *search) margin(lo, hi int) float64 {
	return math.Exp(math.Abs(s.level[hi]-s.level[lo])/2) - 1
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (s *search) logf(format string, args ...any) {
	if s.opts.Log != nil {
		fmt.Fprintf(s.opts.Log, "bisect: "+format+"\n", args...)
	}
}

func (s *search) save() error {
	if s.opts.Save == nil {
		return nil
	}
	return s.opts.Save(*s.j)
}

// ends measures bad against good (or takes it from the journal) and
// decides whether there is a change worth a search.
func (s *search) ends(ctx context.Context) (Ends, error) {
	good, bad := s.revs[0], s.revs[len(s.revs)-1]
	e := s.j.Ends
	if e == nil || endsKey(e.Good.ID, e.Bad.ID) != endsKey(good.ID, bad.ID) {
		for _, c := range []gitrev.Commit{good, bad} {
			if err := s.build(ctx, c); err != nil {
				if errors.Is(err, ErrSkip) {
					return Ends{}, fmt.Errorf("%s %s: %v; bisect needs both ends to build and run", endName(c, good), c.Short, err)
				}
				return Ends{}, err
			}
		}
		s.logf("measuring bad %s against good %s (%d revisions between them)", bad.Short, good.Short, len(s.revs)-2)
		m, err := s.lab.Measure(ctx, Run{Revs: []gitrev.Commit{good, bad}})
		if err != nil {
			if errors.Is(err, ErrSkip) {
				return Ends{}, fmt.Errorf("good %s against bad %s: %v; bisect needs both ends to build and run", good.Short, bad.Short, err)
			}
			return Ends{}, err
		}
		cmp, ok := m.Of(bad.ID, good.ID)
		if !ok {
			return Ends{}, fmt.Errorf("the run of good %s and bad %s gave no comparison of them", good.Short, bad.Short)
		}
		e = &Ends{Good: good, Bad: bad, BadVsGood: cmp, Launches: m.Launches, Dir: m.Dir, Note: m.Note}
		decideEnds(e, s.opts.Threshold)
		s.j.Ends = e
		if err := s.save(); err != nil {
			return *e, err
		}
	}
	// Again on a resumed search (the CLI refuses another threshold; a
	// journal of an older lnbench lacks the step margin).
	decideEnds(e, s.opts.Threshold)
	return *e, nil
}

func endName(c, good gitrev.Commit) string {
	if c.ID == good.ID {
		return "--good"
	}
	return "--bad"
}

// decideEnds sets whether good and bad differ enough for a search. A run
// that cannot tell them apart stops it, saying how large a change the
// interval leaves open (at least the threshold: the user's, else the
// run's MDE). A change the run establishes is searched even when it is
// below that MDE (it was detected anyway), unless the user's threshold
// says it is too small to matter.
func decideEnds(e *Ends, threshold float64) {
	c := e.BadVsGood
	e.Threshold = threshold
	if e.Threshold == 0 {
		e.Threshold = c.MDE
	}
	change := math.Abs(c.Ratio - 1)
	e.StepMargin = 0
	switch {
	case c.Verdict != Slower && c.Verdict != Faster:
		e.Difference, e.Direction = false, ""
		open := math.Max(c.High-1, 1-c.Low)
		if c.Low > 0 {
			open = math.Max(c.High-1, 1/c.Low-1)
		}
		e.Note = fmt.Sprintf("no difference larger than %s between good and bad: bad/good %.3f (%s), %s", fmtPct(math.Max(e.Threshold, open)), c.Ratio, c.interval(), c.Verdict)
	case threshold > 0 && change < threshold:
		e.Difference, e.Direction = false, ""
		e.Note = fmt.Sprintf("no difference larger than %s between good and bad: bad is %s by %s (%s), below the threshold", fmtPct(threshold), c.Verdict, fmtPct(change), c.interval())
	default:
		e.Difference, e.Direction = true, c.Verdict
		e.StepMargin = HalfEffect(c.Ratio)
		e.Note = fmt.Sprintf("bad is %s than good by %s (%s, p = %.3g)", c.Verdict, fmtPct(change), c.interval(), c.P)
		if threshold > 0 {
			e.Note += ", above the threshold " + fmtPct(threshold)
		} else if change < c.MDE {
			e.Note += fmt.Sprintf("; below the run's MDE (%s) yet established, so the steps may need more launches", fmtPct(c.MDE))
		}
	}
}

// pick is the revision inside (lo, hi) nearest its middle that is not
// skipped.
func (s *search) pick(lo, hi int) (int, bool) {
	best, found := 0, false
	for i := lo + 1; i < hi; i++ {
		if _, skipped := s.j.Skips[s.revs[i].ID]; skipped {
			continue
		}
		if !found || abs2(2*i-lo-hi) < abs2(2*best-lo-hi) {
			best, found = i, true
		}
	}
	return best, found
}

func abs2(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// build builds c unless the journal already skipped it.
func (s *search) build(ctx context.Context, c gitrev.Commit) error {
	if why, ok := s.j.Skips[c.ID]; ok {
		return SkipError{Why: why}
	}
	err := s.lab.Build(ctx, c)
	if errors.Is(err, ErrSkip) {
		s.j.Skips[c.ID] = err.Error()
		if serr := s.save(); serr != nil {
			return serr
		}
		s.logf("skipping %s: %v", c, err)
		return err
	}
	if err == nil {
		s.j.Builds++
	}
	return err
}

// step measures revs[mid] between revs[lo] and revs[hi] (or takes the
// journal's step) and places it.
func (s *search) step(ctx context.Context, lo, mid, hi int) (Step, error) {
	l, m, h := s.revs[lo], s.revs[mid], s.revs[hi]
	if st, ok := s.j.step(l.ID, m.ID, h.ID); ok {
		return st, nil
	}
	s.progress(lo, hi)
	if err := s.build(ctx, m); err != nil {
		return Step{}, err
	}
	margin := s.margin(lo, hi)
	meas, err := s.lab.Measure(ctx, Run{Revs: []gitrev.Commit{l, m, h}, Direction: s.j.Ends.Direction, Margin: margin})
	if errors.Is(err, ErrSkip) {
		s.j.Skips[m.ID] = err.Error()
		s.logf("skipping %s: %v", m, err)
		return Step{}, errors.Join(err, s.save())
	}
	if err != nil {
		return Step{}, err
	}
	vsLo, okLo := meas.Of(m.ID, l.ID)
	vsHi, okHi := meas.Of(m.ID, h.ID)
	if !okLo || !okHi {
		return Step{}, fmt.Errorf("the run of %s between %s and %s gave no comparison of them", m.Short, l.Short, h.Short)
	}
	vsLo, vsHi = vsLo.AtMargin(margin), vsHi.AtMargin(margin)
	st := Step{Lo: l, Subject: m, Hi: h, VsLo: vsLo, VsHi: vsHi, Margin: margin, Launches: meas.Launches, Dir: meas.Dir}
	st.Class, st.Placed, st.Note = Classify(vsLo, vsHi, s.j.Ends.Direction, margin)
	if meas.Note != "" {
		st.Note = joinNotes(st.Note, meas.Note)
	}
	s.j.Steps = append(s.j.Steps, st)
	s.logf("%s: %s at the margin ±%s (vs good end %.3f, %s, %s; vs bad end %.3f, %s, %s)%s", m, st.Class, fmtPct(margin),
		vsLo.Ratio, vsLo.interval(), vsLo.Verdict, vsHi.Ratio, vsHi.interval(), vsHi.Verdict, prefixed(st.Note))
	return st, s.save()
}

func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func prefixed(note string) string {
	if note == "" {
		return ""
	}
	return ": " + note
}

// progress says where the search is: steps done and left, builds, time.
func (s *search) progress(lo, hi int) {
	left := bits.Len(uint(hi - lo - 1)) // ⌈log2(revisions inside + 1)⌉
	s.logf("step %d: %d revision(s) left between %s and %s, ~%d step(s) to go; %d build(s) so far, ~%d to go; %v elapsed; like an end within ±%s (half their measured effect)",
		len(s.j.Steps)+1, hi-lo-1, s.revs[lo].Short, s.revs[hi].Short, left, s.j.Builds, left, s.opts.now().Sub(s.start).Round(time.Second), fmtPct(s.margin(lo, hi)))
}

// culprit is the first bad commit of a finished range: hi, or with
// skipped revisions between, each of them too.
func (s *search) culprit(lo, hi int) Culprit {
	c := Culprit{Commit: s.revs[hi], LastGood: s.revs[lo]}
	if hi-lo > 1 {
		c.Candidates = append([]gitrev.Commit(nil), s.revs[lo+1:hi+1]...)
	}
	return c
}

func (s *search) result(res Result) Result {
	res.Steps = append([]Step(nil), s.j.Steps...)
	res.Builds = s.j.Builds
	res.Runs = len(s.j.Steps)
	if s.j.Ends != nil {
		res.Runs++
	}
	for _, r := range s.revs {
		if why, ok := s.j.Skips[r.ID]; ok {
			res.Skipped = append(res.Skipped, Skip{Commit: r, Why: why})
		}
	}
	return res
}

// Classify places a revision from its comparisons with the low (like
// good) and high (like bad) ends of its range; dir is what bad is
// (Slower or Faster) and margin the step's margin (HalfEffect of the
// ends' ratio): a comparison whose interval lies within ±margin is the
// same as that end (AtMargin; margin 0 keeps the run's verdicts). A
// revision the data cannot place is Undecided and goes toward the end
// its ratio is nearer, which the note says.
func Classify(vsLo, vsHi Comparison, dir string, margin float64) (class, placed Class, note string) {
	vsLo, vsHi = vsLo.AtMargin(margin), vsHi.AtMargin(margin)
	opp := Faster
	if dir == Faster {
		opp = Slower
	}
	loSame, hiSame := vsLo.Verdict == Same, vsHi.Verdict == Same
	loChanged, hiChanged := vsLo.changed(dir), vsHi.changed(opp) // each toward the other end
	loBeyond, hiBeyond := vsLo.changed(opp), vsHi.changed(dir)   // past an end: not monotonic
	switch {
	case loSame && hiSame:
		return nearer(vsLo, vsHi, "the same as both ends within the margin ±"+fmtPct(margin))
	case loSame:
		return LikeGood, LikeGood, ""
	case hiSame:
		return LikeBad, LikeBad, ""
	case loChanged && hiChanged:
		return Between, Between, "different from both ends: part of the change is before it, part after"
	case loChanged && hiBeyond:
		return LikeBad, LikeBad, "not monotonic: " + dir + " than the bad end too"
	case loChanged:
		return LikeBad, LikeBad, ""
	case hiChanged && loBeyond:
		return LikeGood, LikeGood, "not monotonic: " + opp + " than the good end too"
	case hiChanged:
		return LikeGood, LikeGood, ""
	case loBeyond:
		return LikeGood, LikeGood, "not monotonic: " + opp + " than the good end"
	case hiBeyond:
		return LikeBad, LikeBad, "not monotonic: " + dir + " than the bad end"
	}
	return nearer(vsLo, vsHi, "not yet known at the cap")
}

// nearer places an undecided revision with the end its ratio is nearer.
func nearer(vsLo, vsHi Comparison, why string) (Class, Class, string) {
	if vsLo.logDistance() <= vsHi.logDistance() {
		return Undecided, LikeGood, fmt.Sprintf("%s; placed with the good end, whose ratio is nearer (%.3f against %.3f): weaker evidence", why, vsLo.Ratio, vsHi.Ratio)
	}
	return Undecided, LikeBad, fmt.Sprintf("%s; placed with the bad end, whose ratio is nearer (%.3f against %.3f): weaker evidence", why, vsHi.Ratio, vsLo.Ratio)
}
