package analysis

import (
	"math"
	"testing"
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
