package report

import (
	"testing"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/scenario"
)

func TestRatioBetweenTwoSpecsNeitherTheBaseline(t *testing.T) {
	row := func(node string, means ...float64) Row {
		var ls []analysis.Launch
		for i, m := range means {
			// Latency moves the other way: a check that p50 reads its own value.
			ls = append(ls, analysis.Launch{Launch: i + 1, MeanSeconds: m, P50Ms: 100 / m})
		}
		row := Row{Node: node}
		row.Params = []scenario.Value{{Name: nodeParam, Value: node}, {Name: "Concurrency", Value: "20"}}
		row.Launches = ls
		return row
	}
	r := Report{Cases: []Row{
		row("good", 1.00, 1.01, 0.99, 1.00, 1.02, 0.98),
		row("mid", 1.20, 1.21, 1.19, 1.20, 1.22, 1.18),
		row("bad", 1.20, 1.22, 1.18, 1.21, 1.20, 1.19),
	}}
	vsGood, ok := RatioBetween(r, "mid", "good", "Concurrency=20")
	if !ok || vsGood.Verdict != VerdictSlower || vsGood.Of < 1.15 || !vsGood.Paired {
		t.Fatalf("mid vs good = %+v", vsGood)
	}
	vsBad, ok := RatioBetween(r, "mid", "bad", "Concurrency=20")
	if !ok || vsBad.Verdict == VerdictSlower || vsBad.Verdict == VerdictFaster {
		t.Fatalf("mid vs bad = %+v", vsBad)
	}
	p50, ok := MetricRatioBetween(r, MetricP50, "mid", "good", "Concurrency=20")
	if !ok || p50.Verdict != VerdictFaster || p50.Of > 0.87 || !p50.Paired {
		t.Fatalf("p50 mid vs good = %+v", p50)
	}
	if _, ok := RatioBetween(r, "mid", "good", "Concurrency=40"); ok {
		t.Fatal("a case that does not exist was compared")
	}
}
