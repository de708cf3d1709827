package report

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/stats"
)

// run is a report whose cases each have 10 complete iterations of about
// secs[id] seconds and 10/secs payments/s.
func run(id string, secs map[string]float64, order ...string) Report {
	r := Report{RunID: id}
	for _, c := range order {
		var its []analysis.Iteration
		for i := range 10 {
			s := secs[c] * (1 + 0.01*float64(i))
			its = append(its, analysis.Iteration{Index: i, Seconds: s, Complete: true, PaymentsPerSec: 10 / s})
		}
		its = append(its, analysis.Iteration{Index: 10, Seconds: 99, Complete: false}) // never a sample
		r.Cases = append(r.Cases, Row{Case: analysis.Case{ID: c, Iterations: its}})
	}
	return r
}

func TestCompare(t *testing.T) {
	base := run("base", map[string]float64{"a": 1, "b": 1, "gone": 1}, "a", "b", "gone")
	nw := run("new", map[string]float64{"a": 1.2, "b": 0.8, "added": 1}, "added", "a", "b")
	cmp, err := Compare(base, nw, 0.05, 0.02)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Cases) != 2 || cmp.Cases[0].ID != "a" || cmp.Cases[0].Time.Verdict != stats.Regressed || cmp.Cases[1].PaymentsPerSec.Verdict != stats.Improved {
		t.Errorf("cases %+v", cmp.Cases)
	}
	if got := cmp.Regressed(); !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("Regressed = %v", got)
	}
	if !reflect.DeepEqual(cmp.Notes, []string{"added: only in new", "gone: only in base"}) {
		t.Errorf("notes %q", cmp.Notes)
	}
	var b bytes.Buffer
	if err := CompareText(&b, cmp); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"+20.0%", "regressed", "improved", "note: gone: only in base", "alpha=0.05 noise=2.0%"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	if _, err := Compare(base, run("other", map[string]float64{"c": 1}, "c"), 0.05, 0.02); err == nil {
		t.Error("no case in common should be an error")
	}
}
