package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/record"
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

// launchRow is a case whose launches had the given mean iteration times,
// each from two iterations 1% either side of it.
func launchRow(node, conc string, means ...float64) Row {
	var secs []float64
	var launches []analysis.Launch
	for i, m := range means {
		secs = append(secs, 0.99*m, 1.01*m)
		launches = append(launches, analysis.Launch{Launch: i, Iterations: 2, MeanSeconds: m})
	}
	r := specRow(node, conc, secs...)
	r.Launches = launches
	return r
}

var cfg = verdictConfig{alpha: DefaultAlpha, noise: DefaultNoise, effect: 0.05}

func TestRatioHandComputed(t *testing.T) {
	// Baseline 1, 3: mean 2, SD √2, CV 1/√2. Case 4, 8: mean 6, SD 2√2,
	// CV √2/3. RatioSD = 3·√(1/2 + 2/9) = 3·√(13/18). One launch a side:
	// the iterations are the units, Ratio their geometric means' ratio √32/√3.
	got := ratioOf(specRow("new", "1", 4, 8), specRow("base", "1", 1, 3), cfg)
	if math.Abs(got.Of-math.Sqrt(32.0/3)) > 1e-12 || math.Abs(got.SD-3*math.Sqrt(13.0/18)) > 1e-12 {
		t.Errorf("Ratio, RatioSD = %v, %v; want %v, %v", got.Of, got.SD, math.Sqrt(32.0/3), 3*math.Sqrt(13.0/18))
	}
	if got.Level != LevelIterations || got.NBase != 2 || math.Abs(got.Change-2) > 1e-12 || got.Verdict != VerdictUnknown ||
		!slices.ContainsFunc(got.Notes, func(n string) bool { return strings.Contains(n, "ignore launch-to-launch variance") }) {
		t.Errorf("one launch a side must be marked as iteration-level: %+v", got)
	}
	// Even a threefold change is not called from one launch a side; the
	// note names the launch count that would tell.
	tell := fmt.Sprintf("%d launches per spec (LaunchCount=%d) would detect", got.LaunchesForEffect, got.LaunchesForEffect)
	if got.LaunchesForEffect < 2 || !slices.ContainsFunc(got.Notes, func(n string) bool { return strings.Contains(n, tell) }) {
		t.Errorf("one launch a side: %d launches for the effect, notes %q; want %q", got.LaunchesForEffect, got.Notes, tell)
	}
	if one := ratioOf(specRow("new", "1", 4), specRow("base", "1", 1), cfg); one.Verdict != VerdictTooFew {
		t.Errorf("one iteration a side: %+v", one)
	}
}

// The launch-level verdicts, on launch means whose paired test R gives:
// t.test(log(new), log(base), paired=TRUE) → ratio 1.0833, CI 1.0250–1.1451, p 0.0193.
func TestRatioLaunchLevel(t *testing.T) {
	base := launchRow("base", "1", 1.00, 1.05, 0.97, 1.02)
	tests := []struct {
		name    string
		row     Row
		want    string
		paired  bool
		note    string
		suggest bool
	}{
		{"slower", launchRow("new", "1", 1.10, 1.12, 1.01, 1.15), VerdictSlower, true, "", false},
		{"faster", launchRow("new", "1", 0.80, 0.86, 0.78, 0.83), VerdictFaster, true, "", false},
		{"same", launchRow("new", "1", 1.001, 1.051, 0.971, 1.0205), VerdictSame, true, "same: no change larger than", true},
		{"not yet known", launchRow("new", "1", 1.10, 0.95, 1.05, 0.93), VerdictUnknown, true, "not yet known: changes up to", true},
		{"a round missing: dropped, the others paired", launchRow("new", "1", 1.10, 1.12, 1.01), VerdictUnknown, true, "launch round(s) #4 dropped", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ratioOf(tt.row, base, cfg)
			if got.Verdict != tt.want || got.Level != LevelLaunches || got.Paired != tt.paired || got.MDE <= 0 || got.Low <= 0 {
				t.Errorf("%+v, want %q paired %v", got, tt.want, tt.paired)
			}
			if tt.note != "" && !slices.ContainsFunc(got.Notes, func(n string) bool { return strings.Contains(n, tt.note) }) {
				t.Errorf("notes %q lack %q", got.Notes, tt.note)
			}
			if got.LaunchesForEffect < 2 {
				t.Errorf("launches for 5%%: %d", got.LaunchesForEffect)
			}
			suggests := slices.ContainsFunc(got.Notes, func(n string) bool { return strings.Contains(n, "launches per spec would detect a 5% change") })
			if tt.suggest != suggests {
				t.Errorf("notes %q: suggestion %v, want %v", got.Notes, suggests, tt.suggest)
			}
		})
	}
	got := ratioOf(tests[0].row, base, cfg)
	if math.Abs(got.Of-1.0833460) > 1e-6 || math.Abs(got.Low-1.0249519) > 1e-6 || math.Abs(got.High-1.1450669) > 1e-6 || math.Abs(got.P-0.0193352) > 1e-6 {
		t.Errorf("paired test %+v, want R's 1.0833 [1.0250, 1.1451] p 0.0193", got)
	}
}

func TestOppositeNote(t *testing.T) {
	for _, tt := range []struct {
		r    Ratio
		want string
	}{
		{Ratio{Of: 0.99, P: 0.01, Change: 0.02, Verdict: VerdictSame}, "significant toward faster (p=0.010) while the median iteration time moved +2.0%"},
		{Ratio{Of: 0.99, P: 0.01, Change: -0.01, Verdict: VerdictSame}, "significant toward faster (p=0.010) but by 1.0%, within the 2% noise threshold"},
		{Ratio{Of: 1.2, P: 0.001, Change: -0.01, Verdict: VerdictSlower}, ""},
		{Ratio{Of: 0.99, P: 0.2, Change: 0.02, Verdict: VerdictUnknown}, ""},
	} {
		got := strings.Join(oppositeNote(tt.r, cfg), "")
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("%+v: %q, want %q", tt.r, got, tt.want)
		}
	}
}

func TestFillRatios(t *testing.T) {
	r := Report{Manifest: record.Manifest{Nodes: []record.NodeInfo{{Label: "base", Baseline: true}, {Label: "new"}}}, Cases: []Row{
		specRow("base", "1", 1, 1.1, 1.2, 1.3), specRow("new", "1", 2, 2.2, 2.4, 2.6), specRow("new", "2", 1, 2, 3, 4)}}
	fillRatios(&r)
	if rt := r.Cases[0].Ratio; rt == nil || rt.Of != 1 || rt.SD != 0 || rt.Verdict != VerdictBaseline {
		t.Errorf("baseline row ratio %+v", rt)
	}
	if rt := r.Cases[1].Ratio; rt == nil || math.Abs(rt.Of-2) > 1e-12 || rt.Verdict != VerdictUnknown || rt.Level != LevelIterations {
		t.Errorf("new row ratio %+v", rt)
	}
	if r.Cases[2].Ratio != nil {
		t.Errorf("Concurrency=2 has no baseline case, got %+v", r.Cases[2].Ratio)
	}
	tb := SummaryTable(r)
	at := slices.Index(tb.Header, "Ratio")
	if got := strings.Join(tb.Rows[2][at:at+len(ratioHeader(DefaultAlpha))], " "); got != "NA NA NA NA NA NA no baseline case" {
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
	r := Report{Manifest: record.Manifest{Nodes: []record.NodeInfo{{Implementation: "lnd", Version: "v0.20.1-beta"}}}}
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

// An open loop's iteration time is its schedule's (TotalPayments / Rate),
// so its verdict tests each launch's median latency instead.
func TestOpenLoopVerdictIsOnP50(t *testing.T) {
	open := func(node string, p50s ...float64) Row {
		r := launchRow(node, "1", 1, 1, 1, 1) // the schedule: the same time every launch
		r.OfferedPerSec = 50
		for i := range r.Launches {
			r.Launches[i].P50Ms = p50s[i]
		}
		for i := range r.Iterations {
			r.Iterations[i].P50Ms = p50s[i/2]
		}
		return r
	}
	base := open("base", 100, 104, 98, 101)
	got := ratioOf(open("new", 130, 136, 126, 133), base, cfg)
	if got.Metric != MetricP50 || got.Verdict != VerdictSlower || got.Of < 1.29 || got.Of > 1.32 || got.Level != LevelLaunches {
		t.Errorf("open loop, p50 30%% higher: %+v", got)
	}
	// The same latencies in a closed loop are not what is tested: time is.
	closed := func(r Row) Row { r.OfferedPerSec = 0; return r }
	if got := ratioOf(closed(open("new", 130, 136, 126, 133)), closed(base), cfg); got.Metric != "" || got.Verdict != VerdictSame {
		t.Errorf("closed loop with equal times: %+v", got)
	}
	r := Report{Manifest: record.Manifest{Nodes: []record.NodeInfo{{Label: "base", Baseline: true}, {Label: "new"}}},
		Cases: []Row{base, open("new", 130, 136, 126, 133)}}
	fillRatios(&r)
	if lines := strings.Join(VerdictLines(r), "\n"); !strings.Contains(lines, "slower, ratio 1.30") || !strings.Contains(lines, "of p50 latency") {
		t.Errorf("verdict lines:\n%s", lines)
	}
}

// Many cases: a run's change verdicts hold alpha together (Holm).
func TestFillRatiosHolmOverCases(t *testing.T) {
	r := Report{Manifest: record.Manifest{Nodes: []record.NodeInfo{{Label: "base", Baseline: true}, {Label: "new"}}}}
	for _, conc := range []string{"1", "2", "3", "4", "5"} {
		r.Cases = append(r.Cases, launchRow("base", conc, 1, 1.04, 0.97, 1.02, 0.98, 1.01),
			launchRow("new", conc, 1.0513, 1.04, 1.03, 1.0303, 1.0511, 1.0304))
	}
	fillRatios(&r)
	for _, c := range r.Cases {
		rt := c.Ratio
		if c.Node == "base" {
			continue
		}
		if !(rt.P < 0.05) || rt.PHolm < 0.05 || rt.Verdict != VerdictUnknown ||
			!slices.ContainsFunc(rt.Notes, func(n string) bool { return strings.Contains(n, "not over the 5 cases compared") }) {
			t.Errorf("%s: %+v; want significant alone, not yet known over 5 cases", c.ID, rt)
		}
	}
}

// duetSolo gives a launch row duet means beside its solo means.
func duetSolo(r Row, duet ...float64) Row {
	for i := range r.Launches {
		r.Launches[i].DuetIterations, r.Launches[i].DuetMeanSeconds = 5, duet[i]
	}
	return r
}

// duet-solo: the direction from the duet half, the size and "same" from
// the solo half. A CPU-bound change reads 4% in duet and 18% alone: the
// verdict is slower with the size 1.18; a change the duet cannot see but
// the solo half bounds within 5% is same; halves that disagree are not
// yet known.
func TestDuetSoloTwoStageVerdict(t *testing.T) {
	base := duetSolo(launchRow("base", "1", 1.00, 1.05, 0.97, 1.02, 0.99, 1.01), 2, 2.1, 1.94, 2.04, 1.98, 2.02)
	tests := []struct {
		name      string
		row       Row
		want      string
		ratio     float64 // the reported size: the solo half's
		duetRatio float64
	}{
		{"slower, sized alone", duetSolo(launchRow("new", "1", 1.18, 1.24, 1.15, 1.20, 1.17, 1.19), 2.08, 2.19, 2.02, 2.12, 2.06, 2.1), VerdictSlower, 1.18, 1.04},
		{"same alone, duet flat", duetSolo(launchRow("new", "1", 1.001, 1.052, 0.972, 1.019, 0.991, 1.011), 2.0, 2.11, 1.93, 2.05, 1.97, 2.02), VerdictSame, 1.0, 1.0},
		{"halves disagree", duetSolo(launchRow("new", "1", 0.80, 0.85, 0.78, 0.82, 0.79, 0.81), 2.08, 2.19, 2.02, 2.12, 2.06, 2.1), VerdictUnknown, 0.81, 1.04},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ratioOf(tt.row, base, cfg)
			if got.Verdict != tt.want || got.Duet == nil || math.Abs(got.Of-tt.ratio) > 0.01 || math.Abs(got.Duet.Of-tt.duetRatio) > 0.01 {
				t.Errorf("%+v duet %+v; want %s, size %.2f, duet %.2f", got, got.Duet, tt.want, tt.ratio, tt.duetRatio)
			}
			if !slices.ContainsFunc(got.Notes, func(n string) bool { return strings.Contains(n, "size from the solo half") }) {
				t.Errorf("notes %q do not say which half gave what", got.Notes)
			}
		})
	}
	// Holm reads the direction's p.
	r := Report{Manifest: record.Manifest{Nodes: []record.NodeInfo{{Label: "base", Baseline: true}, {Label: "new"}}},
		Cases: []Row{base, tests[0].row, duetSolo(launchRow("base", "2", 1, 1, 1, 1, 1, 1), 2, 2, 2, 2, 2, 2), duetSolo(launchRow("new", "2", 1, 1, 1, 1, 1, 1), 2, 2, 2, 2, 2, 2)}}
	r.Cases[2].Params[1].Value, r.Cases[3].Params[1].Value = "2", "2"
	fillRatios(&r)
	if rt := r.Cases[1].Ratio; rt.PHolm < rt.Duet.P || rt.PHolm > 2*rt.Duet.P+1e-12 {
		t.Errorf("Holm p %g from duet p %g and solo p %g", rt.PHolm, rt.Duet.P, rt.P)
	}
}

// In duet a CPU-bound change reads smaller than alone, so "same" must
// exclude the effect alone: an interval within ±5% but not within the
// shrunk margin is not yet known, and the note gives both sizes.
func TestDuetSameExcludesTheEffectAlone(t *testing.T) {
	base := launchRow("base", "1", 1.00, 1.05, 0.97, 1.02)
	row := launchRow("new", "1", 1.00*1.02, 1.05*0.99, 0.97*1.03, 1.02*1.00) // within ±5%, not ±1.3%
	duetCfg := cfg
	duetCfg.design = DesignDuet
	got := ratioOf(row, base, duetCfg)
	if got.Verdict != VerdictUnknown || !slices.ContainsFunc(got.Notes, func(n string) bool { return strings.Contains(n, "each build alone") }) {
		t.Errorf("duet: %+v, want not yet known with the size alone in a note", got)
	}
	tight := launchRow("new", "1", 1.001, 1.051, 0.971, 1.0205)
	if got := ratioOf(tight, base, duetCfg); got.Verdict != VerdictSame {
		t.Errorf("duet, interval within the shrunk margin: %+v", got)
	}
	if got := ratioOf(row, base, cfg); got.Verdict != VerdictSame {
		t.Errorf("sequential: %+v, want same", got)
	}
}

// A size whose interval is narrower than the spread between sessions says
// so; a wide one, or a duet's (its own note), does not.
func TestNarrowSizeNamesTheSessionSpread(t *testing.T) {
	base := launchRow("base", "1", 1.00, 1.05, 0.97, 1.02)
	noted := func(r Ratio) bool {
		return slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "run again before quoting the size") })
	}
	narrow := launchRow("new", "1", 1.10, 1.155, 1.067, 1.122) // 10% slower in every round
	if got := ratioOf(narrow, base, cfg); got.Verdict != VerdictSlower || !noted(got) {
		t.Errorf("narrow: %+v", got)
	}
	wide := launchRow("new", "1", 1.15, 1.3125, 1.1446, 1.326) // slower by 15–30% a round
	if got := ratioOf(wide, base, cfg); got.Verdict != VerdictSlower || noted(got) {
		t.Errorf("wide: %+v", got)
	}
}
