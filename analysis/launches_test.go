package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/result"
)

// Iterations numbered from launch·PerLaunch fall in their launch; an
// incomplete iteration counts in none.
func TestLaunches(t *testing.T) {
	recs := iterations(1, 3, 2, 4, 10, 6)
	recs = append(recs, pay(5, 500e9, 1e8, "succeeded")) // a second payment: iteration 5 is incomplete
	cs := Analyze(recs, []string{"C"}, map[string]Shape{"C": {Payments: 1, Invocations: 1, PerLaunch: 2}})
	ls := cs[0].Launches
	if len(ls) != 3 {
		t.Fatalf("launches %+v", ls)
	}
	for i, want := range []struct {
		n    int
		mean float64
	}{{2, 2}, {2, 3}, {1, 10}} {
		if ls[i].Launch != i || ls[i].Iterations != want.n || math.Abs(ls[i].MeanSeconds-want.mean) > 1e-9 {
			t.Errorf("launch %d: %+v, want %d iterations of mean %g", i, ls[i], want.n, want.mean)
		}
	}
	if math.Abs(ls[0].PaymentsPerSec-0.5) > 1e-9 {
		t.Errorf("launch 0: %.3f payments/s, want 0.5 (2 payments in 4 s)", ls[0].PaymentsPerSec)
	}
	if one := launchesOf(cs[0].Iterations, Shape{Payments: 1}); len(one) != 1 || one[0].Iterations != 5 {
		t.Errorf("PerLaunch 0 is one launch: %+v", one)
	}
	if one := Analyze(recs, []string{"C"}, map[string]Shape{"C": {Payments: 1}})[0].Launches; one != nil {
		t.Errorf("a case of one launch lists none (it is the case itself): %+v", one)
	}
}

// duet-solo: the duet iterations (phase duet, numbered from
// launch·DuetPerLaunch) give each launch's duet figures beside its solo
// ones, and never enter the case's own statistics.
func TestDuetHalfOfALaunch(t *testing.T) {
	recs := iterations(1, 1, 2, 2) // solo: launch 0 = 1, 1; launch 1 = 2, 2
	for i, s := range []float64{3, 5, 7, 9} {
		r := pay(i, time.Duration(1000+i*100)*time.Second, time.Duration(s*float64(time.Second)), result.Succeeded)
		r.Phase = result.Duet
		recs = append(recs, r)
	}
	c := Analyze(recs, []string{"C"}, map[string]Shape{"C": {Payments: 1, PerLaunch: 2, DuetPerLaunch: 2}})[0]
	if c.Time.N != 4 || math.Abs(c.Time.Mean-1.5) > 1e-9 {
		t.Errorf("the case's statistics read the duet half: %+v", c.Time)
	}
	ls := c.Launches
	if len(ls) != 2 || ls[0].DuetIterations != 2 || math.Abs(ls[0].DuetMeanSeconds-4) > 1e-9 || math.Abs(ls[1].DuetMeanSeconds-8) > 1e-9 ||
		math.Abs(ls[0].MeanSeconds-1) > 1e-9 || math.Abs(ls[1].DuetP50Ms-8000) > 1e-6 {
		t.Errorf("launches %+v, want duet means 4 and 8 beside solo means 1 and 2", ls)
	}
	if ls := Analyze(recs, []string{"C"}, map[string]Shape{"C": {Payments: 1, PerLaunch: 2}})[0].Launches; ls[0].DuetIterations != 0 {
		t.Errorf("without DuetPerLaunch the duet records are ignored: %+v", ls)
	}
}
