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

// fakeLab measures from a table of true iteration times per revision, with
// a deterministic noise per run, and decides verdicts as the reports do:
// a change beyond 4% is a change, within 1.5% is the same, else not known.
type fakeLab struct {
	times     map[string]float64
	noise     float64         // relative noise amplitude
	unknown   map[string]bool // revisions whose comparisons stay not yet known
	noBuild   map[string]bool // revisions that do not build
	noNetwork map[string]bool // revisions whose network does not come up
	failAfter int             // Measure fails (interrupt) after this many runs; 0 never
	builds    map[string]int  // builds asked for, per revision
	measured  [][]string      // each run's revisions
	runs      int
}

func newFakeLab(times map[string]float64) *fakeLab {
	return &fakeLab{times: times, unknown: map[string]bool{}, noBuild: map[string]bool{}, noNetwork: map[string]bool{}, builds: map[string]int{}}
}

func (l *fakeLab) Build(_ context.Context, c gitrev.Commit) error {
	l.builds[c.ID]++
	if l.noBuild[c.ID] {
		return SkipError{Why: "does not build: make: *** [all] Error 2"}
	}
	return nil
}

func (l *fakeLab) Measure(_ context.Context, revs []gitrev.Commit) (Measurement, error) {
	if l.failAfter > 0 && l.runs >= l.failAfter {
		return Measurement{}, context.Canceled
	}
	l.runs++
	var ids []string
	for _, r := range revs {
		ids = append(ids, r.ID)
		if l.noNetwork[r.ID] {
			return Measurement{}, SkipError{Why: "network did not come up: lnd exited 1"}
		}
	}
	l.measured = append(l.measured, ids)
	m := Measurement{Ratios: map[string]Comparison{}, Launches: 6, Dir: fmt.Sprintf("run-%d", l.runs)}
	cmp := func(subject, against string) Comparison {
		wobble := l.noise * math.Sin(float64(7*l.runs+len(subject)+int(subject[len(subject)-1])))
		r := l.times[subject] / l.times[against] * (1 + wobble)
		c := Comparison{Ratio: r, Low: r * 0.98, High: r * 1.02, P: 0.5, MDE: 0.03, Verdict: Unknown}
		switch {
		case l.unknown[subject] || l.unknown[against]:
		case r > 1.04:
			c.Verdict, c.P = Slower, 0.001
		case r < 1/1.04:
			c.Verdict, c.P = Faster, 0.001
		case math.Abs(r-1) < 0.015:
			c.Verdict = Same
		}
		return c
	}
	for _, r := range revs[1:] {
		m.Ratios[Key(r.ID, revs[0].ID)] = cmp(r.ID, revs[0].ID)
	}
	if len(revs) == 3 {
		m.Ratios[Key(revs[1].ID, revs[2].ID)] = cmp(revs[1].ID, revs[2].ID)
	}
	return m, nil
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
		class, placed, _ := Classify(tc.vsLo, tc.vsHi, Slower)
		if class != tc.class || placed != tc.place {
			t.Errorf("%s: %s placed %s, want %s placed %s", tc.name, class, placed, tc.class, tc.place)
		}
	}
}

// highMDE reports an MDE larger than any change, as a run of few launches does.
type highMDE struct{ *fakeLab }

func (h *highMDE) Measure(ctx context.Context, revs []gitrev.Commit) (Measurement, error) {
	m, err := h.fakeLab.Measure(ctx, revs)
	for k, c := range m.Ratios {
		c.MDE = 0.3
		m.Ratios[k] = c
	}
	return m, err
}
