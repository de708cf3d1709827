package report

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/stats"
)

// specRow is a case of spec node with Concurrency=conc whose complete
// iterations took secs.
func specRow(node, conc string, secs ...float64) Row {
	params := []scenario.Value{{Name: "Node", Value: node}, {Name: "Concurrency", Value: conc}}
	c := analysis.Case{ID: "Node=" + node + "/Concurrency=" + conc, Time: stats.Summarize(secs)}
	for i, s := range secs {
		c.Iterations = append(c.Iterations, analysis.Iteration{Index: i, Seconds: s, Complete: true, PaymentsPerSec: 1 / s})
	}
	return Row{Params: params, Node: node, Case: c}
}

func TestRatioHandComputed(t *testing.T) {
	// Baseline 1, 3: mean 2, SD √2, CV 1/√2. Case 4, 8: mean 6, SD 2√2,
	// CV √2/3. Ratio = 6/2 = 3; RatioSD = 3·√(1/2 + 2/9) = 3·√(13/18).
	got := ratioOf(specRow("new", "1", 4, 8), specRow("base", "1", 1, 3), DefaultAlpha, DefaultNoise)
	if math.Abs(got.Of-3) > 1e-12 || math.Abs(got.SD-3*math.Sqrt(13.0/18)) > 1e-12 {
		t.Errorf("Ratio, RatioSD = %v, %v; want 3, %v", got.Of, got.SD, 3*math.Sqrt(13.0/18))
	}
	// 2 vs 2 iterations can never be significant; the change is still there.
	if got.Verdict != VerdictTooFew || math.Abs(got.Change-2) > 1e-12 {
		t.Errorf("verdict %q change %v; want %q, +200%%", got.Verdict, got.Change, VerdictTooFew)
	}
}

func TestRatioVerdicts(t *testing.T) {
	base := specRow("base", "1", 1.00, 1.01, 1.02, 1.03, 1.04, 1.05, 1.06, 1.07)
	tests := []struct {
		name string
		secs []float64
		want string
	}{
		{"slower", []float64{1.20, 1.21, 1.22, 1.23, 1.24, 1.25, 1.26, 1.27}, VerdictSlower},
		{"faster", []float64{0.80, 0.81, 0.82, 0.83, 0.84, 0.85, 0.86, 0.87}, VerdictFaster},
		// Interleaved with the baseline's times: not significant.
		{"same", []float64{1.005, 1.015, 1.025, 1.035, 1.045, 1.055, 1.065, 1.075}, VerdictNoise},
		// Every iteration slower (significant) but by 1%, under the 2% noise.
		{"tiny", []float64{1.0101, 1.0201, 1.0301, 1.0401, 1.0501, 1.0601, 1.0701, 1.0801}, VerdictNoise},
		// 3 vs 8 can be significant: the sample sizes together decide.
		{"three", []float64{2, 2.1, 2.2}, VerdictSlower},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ratioOf(specRow("new", "1", tt.secs...), base, DefaultAlpha, DefaultNoise); got.Verdict != tt.want {
				t.Errorf("verdict %q (change %.3f, p %.3g), want %q", got.Verdict, got.Change, got.P, tt.want)
			}
		})
	}
}

func TestFillRatios(t *testing.T) {
	r := Report{Nodes: []NodeInfo{{Label: "base", Baseline: true}, {Label: "new"}}, Cases: []Row{
		specRow("base", "1", 1, 1.1, 1.2, 1.3), specRow("new", "1", 2, 2.2, 2.4, 2.6), specRow("new", "2", 1, 2, 3, 4)}}
	fillRatios(&r)
	if rt := r.Cases[0].Ratio; rt == nil || rt.Of != 1 || rt.SD != 0 || rt.Verdict != VerdictBaseline {
		t.Errorf("baseline row ratio %+v", rt)
	}
	if rt := r.Cases[1].Ratio; rt == nil || math.Abs(rt.Of-2) > 1e-12 || rt.Verdict != VerdictSlower {
		t.Errorf("new row ratio %+v", rt)
	}
	if r.Cases[2].Ratio != nil {
		t.Errorf("Concurrency=2 has no baseline case, got %+v", r.Cases[2].Ratio)
	}
	tb := SummaryTable(r)
	at := slices.Index(tb.Header, "Ratio")
	if got := strings.Join(tb.Rows[2][at:at+3], " "); got != "NA NA no baseline case" {
		t.Errorf("row without baseline: %q", got)
	}

	// No baseline marked, or one spec only: no Ratio columns at all.
	r.Nodes[0].Baseline = false
	for i := range r.Cases {
		r.Cases[i].Ratio = nil
	}
	fillRatios(&r)
	if r.HasRatios() || r.Cases[1].Ratio != nil || strings.Contains(strings.Join(SummaryTable(r).Header, " "), "Ratio") {
		t.Error("ratios without a baseline")
	}
	one := fixtureReport()
	one.Nodes[0].Baseline, one.Nodes[0].Label = true, "v0.21.0-beta"
	Summarize(&one, fixtureRecords())
	if one.MultiNode() || one.HasRatios() || one.Cases[0].Ratio != nil || one.Cases[0].Node != "v0.21.0-beta" {
		t.Errorf("one spec: multi %v ratios %v node %q", one.MultiNode(), one.HasRatios(), one.Cases[0].Node)
	}
}

func TestNodeLabelOldRuns(t *testing.T) {
	// Runs written before specs had labels: the version names the spec.
	r := Report{Nodes: []NodeInfo{{Implementation: "lnd", Version: "v0.20.1-beta"}}}
	if got := nodeLabelOf(r, nil); got != "v0.20.1-beta" {
		t.Errorf("label %q", got)
	}
	r.Nodes = nil
	r.Scenario.Node.Version = "v0.19.0-beta"
	if got := nodeLabelOf(r, caseParams("Concurrency=2")); got != "v0.19.0-beta" {
		t.Errorf("label %q", got)
	}
	if got := nodeLabelOf(r, caseParams("Node=patched/Concurrency=2")); got != "patched" {
		t.Errorf("label %q", got)
	}
}
