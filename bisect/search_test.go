package bisect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/gitrev"
)

// fakeLab measures from a table of true iteration times per revision, as
// the CLI's lab does: a run starts at start launches and adds 2 at each
// look until run.Known or the cap, each look testing at 0.05/looks. The
// interval is the measured ratio ×/÷ exp(hw·√(start/launches)); verdicts
// are decided as the reports do: a change when the interval excludes 1
// and the ratio moved more than 2%, "same" when it lies within ±effect
// (the run's comparison effect, 5%), else not yet known.
type fakeLab struct {
	times     map[string]float64
	noise     float64         // relative noise amplitude (deterministic per run)
	unknown   map[string]bool // revisions whose comparisons stay not yet known (a wide interval)
	noBuild   map[string]bool // revisions that do not build
	noNetwork map[string]bool // revisions whose network does not come up
	failAfter int             // Measure fails (interrupt) after this many runs; 0 never
	hw        float64         // log half-width of the interval at the first look; 0: 0.02
	effect    float64         // the run's "same" effect; 0: 0.05
	start     int             // launches at the first look; 0: 4
	cap       int             // launches at most; 0: 12
	// first replaces a comparison's first look (by Key): a run whose first
	// launches happened to fall far from the truth.
	first map[string]Comparison
	// cost is the cost text of subject against against (Comparison.Cost),
	// as the CLI's lab reads it from the run; nil: none.
	cost     func(subject, against string) string
	builds   map[string]int // builds asked for, per revision
	measured [][]string     // each run's revisions
	asked    []Run          // each run as the search asked for it
	runs     int
}

func newFakeLab(times map[string]float64) *fakeLab {
	return &fakeLab{times: times, unknown: map[string]bool{}, noBuild: map[string]bool{}, noNetwork: map[string]bool{},
		builds: map[string]int{}, first: map[string]Comparison{}}
}

func (l *fakeLab) Build(_ context.Context, c gitrev.Commit) error {
	l.builds[c.ID]++
	if l.noBuild[c.ID] {
		return SkipError{Why: "does not build: make: *** [all] Error 2"}
	}
	return nil
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// looks is how many times a run may look: after start, then every 2.
func (l *fakeLab) looks() int { return 1 + (or(l.cap, 12)-or(l.start, 4)+1)/2 }

func (l *fakeLab) Measure(_ context.Context, run Run) (Measurement, error) {
	if l.failAfter > 0 && l.runs >= l.failAfter {
		return Measurement{}, context.Canceled
	}
	l.runs++
	l.asked = append(l.asked, run)
	revs := run.Revs
	var ids []string
	for _, r := range revs {
		ids = append(ids, r.ID)
		if l.noNetwork[r.ID] {
			return Measurement{}, SkipError{Why: "network did not come up: lnd exited 1"}
		}
	}
	l.measured = append(l.measured, ids)
	start, capN := or(l.start, 4), or(l.cap, 12)
	alpha := 0.05 / float64(l.looks())
	for launches := start; ; launches += 2 {
		m := Measurement{Ratios: map[string]Comparison{}, Launches: launches, Dir: fmt.Sprintf("run-%d", l.runs)}
		shrink := math.Sqrt(float64(start) / float64(launches))
		cmp := func(subject, against string) Comparison {
			if c, ok := l.first[Key(subject, against)]; ok && launches == start {
				c.Alpha, c.Looks, c.Margin = alpha, l.looks(), or(l.effect, 0.05)
				return c
			}
			wobble := shrink * l.noise * math.Sin(float64(7*l.runs+len(subject)+int(subject[len(subject)-1])))
			r := l.times[subject] / l.times[against] * (1 + wobble)
			hw := shrink * or(l.hw, 0.02)
			if l.unknown[subject] || l.unknown[against] {
				hw = 0.5
			}
			c := Comparison{Ratio: r, Low: r * math.Exp(-hw), High: r * math.Exp(hw), P: 0.5, MDE: 0.03, Verdict: Unknown,
				Alpha: alpha, Looks: l.looks(), Margin: or(l.effect, 0.05)}
			switch e := c.Margin; {
			case c.Low > 1 && r > 1.02:
				c.Verdict, c.P = Slower, alpha/10
			case c.High < 1 && r < 1/1.02:
				c.Verdict, c.P = Faster, alpha/10
			case c.Low >= 1/(1+e) && c.High <= 1+e:
				c.Verdict = Same
			}
			return c
		}
		withCost := func(subject, against string) Comparison {
			c := cmp(subject, against)
			if l.cost != nil {
				c.Cost = l.cost(subject, against)
			}
			return c
		}
		for _, r := range revs[1:] {
			m.Ratios[Key(r.ID, revs[0].ID)] = withCost(r.ID, revs[0].ID)
		}
		if len(revs) == 3 {
			m.Ratios[Key(revs[1].ID, revs[2].ID)] = withCost(revs[1].ID, revs[2].ID)
		}
		if run.Known(m) {
			return m, nil
		}
		if launches >= capN {
			m.Note = fmt.Sprintf("cap reached: %d launches per spec, not yet known", launches)
			return m, nil
		}
	}
}

// history is good (c0) and n commits after it; step gives each commit's
// relative slowdown (cumulative from there on).
func history(n int, steps map[int]float64) ([]gitrev.Commit, map[string]float64) {
	var revs []gitrev.Commit
	times := map[string]float64{}
	t := 1.0
	for i := 0; i <= n; i++ {
		id := fmt.Sprintf("c%d", i)
		t *= 1 + steps[i]
		revs = append(revs, gitrev.Commit{ID: id, Short: id, Subject: "commit " + id})
		times[id] = t
	}
	return revs, times
}

func culpritIDs(r Result) string {
	var ids []string
	for _, c := range r.Culprits {
		ids = append(ids, c.Commit.ID)
	}
	return strings.Join(ids, ",")
}

func TestSearchMonotonic(t *testing.T) {
	for _, at := range []int{1, 2, 3, 4, 5, 6} {
		t.Run(fmt.Sprintf("step at c%d", at), func(t *testing.T) {
			revs, times := history(6, map[int]float64{at: 0.15})
			lab := newFakeLab(times)
			res, err := Search(context.Background(), revs, lab, &Journal{}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := culpritIDs(res); got != fmt.Sprintf("c%d", at) {
				t.Fatalf("culprits %q, want c%d; steps %+v", got, at, res.Steps)
			}
			// Measured revisions: both ends, then one per step.
			if measured := 2 + len(res.Steps); measured > 5 {
				t.Errorf("%d revisions measured, want at most 5", measured)
			}
			if res.Culprits[0].LastGood.ID != fmt.Sprintf("c%d", at-1) {
				t.Errorf("last good %s", res.Culprits[0].LastGood.ID)
			}
			for id, n := range lab.builds {
				if n > 1 {
					t.Errorf("%s built %d times", id, n)
				}
			}
		})
	}
}

func TestSearchFasterIsFoundToo(t *testing.T) {
	revs, times := history(9, map[int]float64{7: -0.2})
	res, err := Search(context.Background(), revs, newFakeLab(times), &Journal{}, Options{})
	if err != nil || culpritIDs(res) != "c7" || res.Ends.Direction != Faster {
		t.Fatalf("culprits %q direction %q err %v", culpritIDs(res), res.Ends.Direction, err)
	}
}

func TestSearchNoisy(t *testing.T) {
	revs, times := history(12, map[int]float64{4: 0.08, 2: 0.005, 9: -0.004})
	lab := newFakeLab(times)
	lab.noise = 0.01
	res, err := Search(context.Background(), revs, lab, &Journal{}, Options{})
	if err != nil || culpritIDs(res) != "c4" {
		t.Fatalf("culprits %q err %v; steps %+v", culpritIDs(res), err, res.Steps)
	}
}

func TestSearchNoDifference(t *testing.T) {
	revs, times := history(6, map[int]float64{3: 0.005})
	lab := newFakeLab(times)
	res, err := Search(context.Background(), revs, lab, &Journal{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Culprits) != 0 || res.Ends.Difference || lab.runs != 1 {
		t.Fatalf("culprits %v difference %v runs %d", res.Culprits, res.Ends.Difference, lab.runs)
	}
	if !strings.Contains(res.Ends.Note, "no difference larger than") {
		t.Errorf("note %q", res.Ends.Note)
	}
	// A change the run establishes is searched even below the run's MDE
	// (a repeat of the e2e bisect stopped there: 24.5% slower, p < 0.05,
	// MDE 26.2% after 3 launches).
	revs, times = history(6, map[int]float64{3: 0.15})
	lab = newFakeLab(times)
	res, err = Search(context.Background(), revs, &highMDE{lab}, &Journal{}, Options{})
	if err != nil || !res.Ends.Difference || culpritIDs(res) != "c3" || !strings.Contains(res.Ends.Note, "below the run's MDE") {
		t.Fatalf("established change below the MDE: %+v, culprits %q, %v", res.Ends, culpritIDs(res), err)
	}
	// A change the run sees but below the user's threshold: no search either.
	revs, times = history(6, map[int]float64{3: 0.06})
	res, err = Search(context.Background(), revs, newFakeLab(times), &Journal{}, Options{Threshold: 0.10})
	if err != nil || res.Ends.Difference || !strings.Contains(res.Ends.Note, "below the threshold") {
		t.Fatalf("below threshold: %+v %v", res.Ends, err)
	}
}

func TestSearchNotMonotonic(t *testing.T) {
	// Half the slowdown at c2, the other half at c6: the midpoint c4
	// differs from both ends, and both places are named.
	revs, times := history(8, map[int]float64{2: 0.1, 6: 0.1})
	res, err := Search(context.Background(), revs, newFakeLab(times), &Journal{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := culpritIDs(res); got != "c2,c6" {
		t.Fatalf("culprits %q, want c2,c6; steps %+v", got, res.Steps)
	}
	if len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "not monotonic") {
		t.Errorf("notes %v", res.Notes)
	}
}

func TestSearchInconclusiveStep(t *testing.T) {
	revs, times := history(6, map[int]float64{4: 0.15})
	lab := newFakeLab(times)
	lab.unknown["c3"] = true // c3 stays "not yet known": placed by its ratio
	res, err := Search(context.Background(), revs, lab, &Journal{}, Options{})
	if err != nil || culpritIDs(res) != "c4" {
		t.Fatalf("culprits %q err %v", culpritIDs(res), err)
	}
	var undecided *Step
	for i := range res.Steps {
		if res.Steps[i].Subject.ID == "c3" {
			undecided = &res.Steps[i]
		}
	}
	if undecided == nil || undecided.Class != Undecided || undecided.Placed != LikeGood || !strings.Contains(undecided.Note, "weaker evidence") {
		t.Fatalf("step of c3: %+v", undecided)
	}
}

func TestSearchSkipsWhatDoesNotBuildOrRun(t *testing.T) {
	revs, times := history(8, map[int]float64{5: 0.15})
	lab := newFakeLab(times)
	lab.noBuild["c4"] = true
	lab.noNetwork["c6"] = true
	res, err := Search(context.Background(), revs, lab, &Journal{}, Options{})
	if err != nil || culpritIDs(res) != "c5" {
		t.Fatalf("culprits %q err %v; steps %+v", culpritIDs(res), err, res.Steps)
	}
	if len(res.Skipped) == 0 {
		t.Fatal("no skipped revisions listed")
	}
	for _, s := range res.Skipped {
		if s.Commit.ID != "c4" && s.Commit.ID != "c6" || s.Why == "" {
			t.Errorf("skipped %+v", s)
		}
	}
	// When the boundary's neighbour is skipped, the culprit is open
	// between the candidates.
	revs, times = history(6, map[int]float64{4: 0.15})
	lab = newFakeLab(times)
	lab.noBuild["c4"] = true
	res, err = Search(context.Background(), revs, lab, &Journal{}, Options{})
	if err != nil || len(res.Culprits) != 1 {
		t.Fatal(err, res.Culprits)
	}
	var cands []string
	for _, c := range res.Culprits[0].Candidates {
		cands = append(cands, c.ID)
	}
	if strings.Join(cands, ",") != "c4,c5" {
		t.Fatalf("candidates %v, want c4,c5", cands)
	}
	// Ends that do not build stop the search at once.
	lab = newFakeLab(times)
	lab.noBuild["c0"] = true
	if _, err := Search(context.Background(), revs, lab, &Journal{}, Options{}); err == nil || !strings.Contains(err.Error(), "--good") {
		t.Fatalf("good that does not build: %v", err)
	}
}

func TestSearchResumes(t *testing.T) {
	revs, times := history(16, map[int]float64{11: 0.15})
	var saved []byte
	save := func(j Journal) error {
		var err error
		saved, err = json.Marshal(j)
		return err
	}
	lab := newFakeLab(times)
	lab.failAfter = 3 // the ends and two steps, then Ctrl-C
	_, err := Search(context.Background(), revs, lab, &Journal{}, Options{Save: save})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want the interrupt", err)
	}
	var j Journal
	if err := json.Unmarshal(saved, &j); err != nil {
		t.Fatal(err)
	}
	if j.Ends == nil || len(j.Steps) != 2 {
		t.Fatalf("journal kept ends %v and %d steps, want both and 2", j.Ends != nil, len(j.Steps))
	}
	again := newFakeLab(times)
	res, err := Search(context.Background(), revs, again, &j, Options{Save: save})
	if err != nil || culpritIDs(res) != "c11" {
		t.Fatalf("resumed: culprits %q err %v", culpritIDs(res), err)
	}
	for _, run := range again.measured {
		if len(run) == 2 {
			t.Error("the resumed search measured the ends again")
		}
	}
	fresh := newFakeLab(times)
	full, _ := Search(context.Background(), revs, fresh, &Journal{}, Options{})
	if again.runs+3 != fresh.runs || len(res.Steps) != len(full.Steps) {
		t.Errorf("resumed runs %d + 3 kept, a fresh search %d; steps %d vs %d", again.runs, fresh.runs, len(res.Steps), len(full.Steps))
	}
	// Rerunning a finished search measures nothing.
	idle := newFakeLab(times)
	if _, err := Search(context.Background(), revs, idle, &j, Options{}); err != nil || idle.runs != 0 {
		t.Fatalf("finished search again: %d runs, %v", idle.runs, err)
	}
}

func TestClassify(t *testing.T) {
	c := func(v string, r float64) Comparison { return Comparison{Verdict: v, Ratio: r} }
	for _, tc := range []struct {
		name         string
		vsLo, vsHi   Comparison
		class, place Class
	}{
		{"same as good", c(Same, 1.0), c(Faster, 0.9), LikeGood, LikeGood},
		{"same as bad", c(Slower, 1.1), c(Same, 1.0), LikeBad, LikeBad},
		{"slower than good, bad unknown", c(Slower, 1.1), c(Unknown, 0.99), LikeBad, LikeBad},
		{"faster than bad, good unknown", c(Unknown, 1.01), c(Faster, 0.9), LikeGood, LikeGood},
		{"between", c(Slower, 1.05), c(Faster, 0.95), Between, Between},
		{"unknown, nearer good", c(Unknown, 1.01), c(Unknown, 0.93), Undecided, LikeGood},
		{"unknown, nearer bad", c(Unknown, 1.08), c(Unknown, 0.99), Undecided, LikeBad},
		{"worse than bad", c(Slower, 1.2), c(Slower, 1.1), LikeBad, LikeBad},
		{"better than good", c(Faster, 0.9), c(Faster, 0.8), LikeGood, LikeGood},
	} {
		class, placed, _ := Classify(tc.vsLo, tc.vsHi, Slower, 0)
		if class != tc.class || placed != tc.place {
			t.Errorf("%s: %s placed %s, want %s placed %s", tc.name, class, placed, tc.class, tc.place)
		}
	}
}

// highMDE reports an MDE larger than any change, as a run of few launches does.
type highMDE struct{ *fakeLab }

func (h *highMDE) Measure(ctx context.Context, run Run) (Measurement, error) {
	m, err := h.fakeLab.Measure(ctx, run)
	for k, c := range m.Ratios {
		c.MDE = 0.3
		m.Ratios[k] = c
	}
	return m, err
}

// A step's "same as an end" is read at the step's margin, half the ends'
// measured log effect, not at the run's comparison effect (5%): each row
// gives what the run said (its verdicts at 5%) and where the step goes.
func TestClassifyAtTheStepMargin(t *testing.T) {
	c := func(v string, r, lo, hi float64) Comparison {
		return Comparison{Verdict: v, Ratio: r, Low: lo, High: hi, Alpha: 0.01, Looks: 5, Margin: 0.05}
	}
	for _, tc := range []struct {
		name          string
		ends          float64 // bad/good, measured
		dir           string
		vsLo, vsHi    Comparison
		at5, at5Place Class // with the run's verdicts (margin 0: the 5% effect)
		class, place  Class
	}{
		// Ends 6% apart: margin 2.96%. The run calls the revision the
		// same as good within 5%, though its interval reaches 1.046, well
		// past halfway to bad: it is not placed like good on that.
		{"5% same, past the margin", 1.06, Slower, c(Same, 1.02, 0.995, 1.046), c(Unknown, 0.975, 0.945, 1.006), LikeGood, LikeGood, Undecided, LikeGood},
		{"5% same as bad, past the margin", 1.06, Slower, c(Unknown, 1.04, 0.99, 1.09), c(Same, 0.99, 0.955, 1.03), LikeBad, LikeBad, Undecided, LikeBad},
		// Ends 50% apart: margin 22.5%. A step known to lie within 8% of
		// good is like good, though 5% cannot say "same" of it.
		{"unknown at 5%, within a wide margin", 1.5, Slower, c(Unknown, 1.08, 0.95, 1.2), c(Unknown, 0.72, 0.6, 1.02), Undecided, LikeGood, LikeGood, LikeGood},
		{"unknown at 5%, within a wide margin of bad", 1.5, Slower, c(Unknown, 1.4, 0.9, 1.8), c(Unknown, 0.95, 0.86, 1.1), Undecided, LikeBad, LikeBad, LikeBad},
		// A significant change smaller than the margin is the same as
		// that end: 5% of a 50% effect does not split the search.
		{"small change within the margin", 1.5, Slower, c(Slower, 1.05, 1.02, 1.08), c(Faster, 0.7, 0.66, 0.74), Between, Between, LikeGood, LikeGood},
		// A change beyond the margin from both ends is still between.
		{"beyond the margin from both", 1.5, Slower, c(Slower, 1.25, 1.23, 1.27), c(Faster, 0.83, 0.81, 0.85), Between, Between, Between, Between},
		// A faster "bad": bad/good 0.8, margin 11.8%.
		{"faster bad, same as bad within the margin", 0.8, Faster, c(Faster, 0.82, 0.76, 0.88), c(Unknown, 1.02, 0.94, 1.1), LikeBad, LikeBad, LikeBad, LikeBad},
		{"faster bad, same as good within the margin", 0.8, Faster, c(Unknown, 0.97, 0.9, 1.07), c(Unknown, 1.21, 0.95, 1.5), Undecided, LikeGood, LikeGood, LikeGood},
	} {
		m := HalfEffect(tc.ends)
		class, placed, _ := Classify(tc.vsLo, tc.vsHi, tc.dir, 0)
		if class != tc.at5 || placed != tc.at5Place {
			t.Errorf("%s at the run's 5%%: %s placed %s, want %s placed %s", tc.name, class, placed, tc.at5, tc.at5Place)
		}
		class, placed, note := Classify(tc.vsLo, tc.vsHi, tc.dir, m)
		if class != tc.class || placed != tc.place {
			t.Errorf("%s at the margin ±%.1f%%: %s placed %s, want %s placed %s (%s)", tc.name, 100*m, class, placed, tc.class, tc.place, note)
		}
		revs := []gitrev.Commit{{ID: "lo"}, {ID: "mid"}, {ID: "hi"}}
		meas := Measurement{Ratios: map[string]Comparison{Key("mid", "lo"): tc.vsLo, Key("mid", "hi"): tc.vsHi}}
		if known := (Run{Revs: revs, Direction: tc.dir, Margin: m}).Known(meas); known != (tc.class != Undecided) {
			t.Errorf("%s: Run.Known %v, want %v: until-known must stop on the step's margin too", tc.name, known, tc.class != Undecided)
		}
	}
}

func TestHalfEffect(t *testing.T) {
	for ratio, want := range map[float64]float64{1.15: 0.0724, 1.5: 0.2247, 1.04: 0.0198, 0.8: 0.1180, 1.0: 0, 0: 0} {
		if got := HalfEffect(ratio); math.Abs(got-want) > 5e-5 {
			t.Errorf("HalfEffect(%g) = %.4f, want %.4f", ratio, got, want)
		}
	}
	// Within the margin of one end is nearer it than the other: the
	// margin from either end meets in the middle on the log scale.
	if m := HalfEffect(1.21); math.Abs((1+m)*(1+m)-1.21) > 1e-12 {
		t.Errorf("(1+m)² = %g, want 1.21", (1+m)*(1+m))
	}
}

// Every step's margin is half the log effect its ends were measured at,
// recorded in the step (so in the journal), and given to the lab for its
// until-known; after a "between" step each half gets its own, from the
// level the between revision was measured at.
func TestStepMarginFollowsTheEnds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int
		steps   map[int]float64
		culprit string
		margins []float64 // each step's, in order
	}{
		{"4% slower", 6, map[int]float64{4: 0.04}, "c4", []float64{0.0198, 0.0198}},
		{"15% slower", 6, map[int]float64{2: 0.15}, "c2", []float64{0.0724, 0.0724, 0.0724}},
		{"50% slower", 6, map[int]float64{5: 0.5}, "c5", []float64{0.2247, 0.2247, 0.2247}},
		{"20% faster", 6, map[int]float64{1: -0.2}, "c1", []float64{0.1180, 0.1180}},
		// 1.1 at c2 and 1.1 again at c6: c4 is between (1.1 of 1.21);
		// both halves are 10% apart, margin 4.88%.
		{"split", 8, map[int]float64{2: 0.1, 6: 0.1}, "c2,c6", []float64{0.1, 0.0488, 0.0488, 0.0488, 0.0488}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			revs, times := history(tc.n, tc.steps)
			lab := newFakeLab(times)
			var saved Journal
			save := func(j Journal) error {
				data, err := json.Marshal(j)
				if err == nil {
					saved = Journal{}
					err = json.Unmarshal(data, &saved)
				}
				return err
			}
			res, err := Search(context.Background(), revs, lab, &Journal{}, Options{Save: save})
			if err != nil || culpritIDs(res) != tc.culprit {
				t.Fatalf("culprits %q, want %s; %v", culpritIDs(res), tc.culprit, err)
			}
			if want := HalfEffect(res.Ends.BadVsGood.Ratio); res.Ends.StepMargin != want || saved.Ends == nil || saved.Ends.StepMargin != want {
				t.Errorf("ends' step margin %g (journal %+v), want %g", res.Ends.StepMargin, saved.Ends, want)
			}
			if len(saved.Steps) != len(tc.margins) || len(lab.asked) != 1+len(tc.margins) {
				t.Fatalf("%d steps in the journal, %d runs; want %d steps", len(saved.Steps), len(lab.asked), len(tc.margins))
			}
			for i, st := range saved.Steps {
				if math.Abs(st.Margin-tc.margins[i]) > 5e-5 {
					t.Errorf("step %d (%s between %s and %s): margin %.4f, want %.4f", i+1, st.Subject.ID, st.Lo.ID, st.Hi.ID, st.Margin, tc.margins[i])
				}
				if run := lab.asked[i+1]; run.Margin != st.Margin || run.Direction != res.Ends.Direction {
					t.Errorf("step %d: the lab was asked margin %g direction %q, the step used %g %q", i+1, run.Margin, run.Direction, st.Margin, res.Ends.Direction)
				}
				if st.VsLo.Margin != st.Margin || st.VsHi.Margin != st.Margin {
					t.Errorf("step %d: comparisons read at %g and %g, not the step's margin %g", i+1, st.VsLo.Margin, st.VsHi.Margin, st.Margin)
				}
			}
			if lab.asked[0].Margin != 0 || lab.asked[0].Direction != "" {
				t.Errorf("the ends run was asked %+v: its own verdict is at the run's effect", lab.asked[0])
			}
		})
	}
}

// The run's 5% "same" would stop a step at a first look that fell far
// from the truth and misplace it; at the step's margin that look is not
// known, the run adds launches, and the step is placed right.
func TestStepMarginKeepsAMisleadingFirstLookGoing(t *testing.T) {
	revs, times := history(6, map[int]float64{4: 0.06}) // c4 is 6% slower: margin 2.96%
	lab := newFakeLab(times)
	// The search measures c3 (like good), then c4 between c3 and c6. The
	// first look at c4 reads 1.02 against c3 (0.995–1.046: within 5%,
	// "same") and 0.975 against c6 (0.945–1.006, not yet known).
	first := map[string]Comparison{
		Key("c4", "c3"): {Ratio: 1.02, Low: 0.995, High: 1.046, P: 0.2, Verdict: Same},
		Key("c4", "c6"): {Ratio: 0.975, Low: 0.945, High: 1.006, P: 0.1, Verdict: Unknown},
	}
	if class, placed, _ := Classify(first[Key("c4", "c3")], first[Key("c4", "c6")], Slower, 0); placed != LikeGood {
		t.Fatalf("at the run's 5%% the first look is %s placed %s: the test lost its point", class, placed)
	}
	lab.first = first
	res, err := Search(context.Background(), revs, lab, &Journal{}, Options{})
	if err != nil || culpritIDs(res) != "c4" {
		t.Fatalf("culprits %q, want c4; %v; steps %+v", culpritIDs(res), err, res.Steps)
	}
	found := false
	for _, st := range res.Steps {
		if st.Subject.ID == "c4" && st.Lo.ID == "c3" && st.Hi.ID == "c6" {
			found = true
			if st.Class != LikeBad || st.Launches <= 4 {
				t.Errorf("c4: %s after %d launches, want like bad after more than the first look's 4", st.Class, st.Launches)
			}
		}
	}
	if !found {
		t.Fatalf("no step measured c4 between c3 and c6: %+v", res.Steps)
	}
}
