package report

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/record"
)

// run is a report whose cases each have 10 complete iterations of about
// secs[id] seconds and 10/secs payments/s, in one launch.
func run(id string, secs map[string]float64, order ...string) Report {
	r := Report{Manifest: record.Manifest{RunID: id}}
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

// launched gives each case of r launches whose means are its iterations'
// scaled by the factors (one launch per factor).
func launched(r Report, factors ...float64) Report {
	for i, c := range r.Cases {
		var ls []analysis.Launch
		for k, f := range factors {
			ls = append(ls, analysis.Launch{Launch: k, Iterations: 10, MeanSeconds: f * c.Iterations[0].Seconds})
		}
		r.Cases[i].Launches = ls
	}
	return r
}

func TestCompare(t *testing.T) {
	spread := []float64{1, 1.03, 0.98, 1.01, 0.99, 1.02}
	base := launched(run("base", map[string]float64{"a": 1, "b": 1, "c": 1, "gone": 1}, "a", "b", "c", "gone"), spread...)
	nw := launched(run("new", map[string]float64{"a": 1.2, "b": 0.8, "c": 1.001, "added": 1}, "added", "a", "b", "c"), spread...)
	cmp, err := Compare(base, nw, 0.05, 0.02, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, cc := range cmp.Cases {
		got[cc.ID] = cc.Ratio.Verdict
		if cc.Ratio.Level != LevelLaunches || cc.Ratio.Paired || cc.Ratio.NBase != 6 || cc.Ratio.PHolm < cc.Ratio.P {
			t.Errorf("%s: %+v, want launches as the unit, unpaired, Holm-adjusted", cc.ID, cc.Ratio)
		}
	}
	want := map[string]string{"a": VerdictSlower, "b": VerdictFaster, "c": VerdictSame}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("verdicts %v, want %v", got, want)
	}
	if got := cmp.Regressed(); !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("Regressed = %v", got)
	}
	if !slices.Contains(cmp.Notes, "added: only in new") || !slices.Contains(cmp.Notes, "gone: only in base") {
		t.Errorf("notes %q", cmp.Notes)
	}
	var b bytes.Buffer
	if err := CompareText(&b, cmp); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"+20.0%", "slower", "faster", "same", "6+6", "note: gone: only in base", "alpha=0.05 noise=2.0% effect=5%",
		"Payments/s (median): base", "launches are the unit", "95% CI"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	if _, err := Compare(base, run("other", map[string]float64{"z": 1}, "z"), 0.05, 0.02, 0.05); err == nil {
		t.Error("no case in common should be an error")
	}
}

// One launch a side never yields faster or slower, however clear the
// iterations: they cannot see the launch-to-launch variance.
func TestCompareOneLaunchIsNotYetKnown(t *testing.T) {
	base := run("base", map[string]float64{"a": 1}, "a")
	nw := run("new", map[string]float64{"a": 1.5}, "a")
	cmp, err := Compare(base, nw, DefaultAlpha, DefaultNoise, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	rt := cmp.Cases[0].Ratio
	if rt.Verdict != VerdictUnknown || rt.Level != LevelIterations || rt.Of < 1.49 || rt.Of > 1.51 || rt.LaunchesForEffect < 2 {
		t.Errorf("one launch a side: %+v", rt)
	}
	if cmp.Regressed() != nil {
		t.Errorf("one launch a side regressed: %v", cmp.Regressed())
	}
	var b bytes.Buffer
	if err := CompareText(&b, cmp); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"+50.0%", "not yet known", "iterations of one launch", "launches per spec (LaunchCount="} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// Holm: five cases each at p ≈ 0.03 are each significant alone, but not
// together; the verdicts say not yet known and why.
func TestCompareHoldsTheErrorRateOverCases(t *testing.T) {
	ids := []string{"a", "b", "c", "d", "e"}
	secs := map[string]float64{}
	for _, id := range ids {
		secs[id] = 1
	}
	base := launched(run("base", secs, ids...), 1, 1.04, 0.97, 1.02, 0.98, 1.01)
	nw := launched(run("new", secs, ids...), 1.06, 1.08, 1.01, 1.07, 1.02, 1.04)
	cmp, err := Compare(base, nw, 0.05, 0.02, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	for _, cc := range cmp.Cases {
		rt := cc.Ratio
		if !(rt.P < 0.05) || rt.PHolm < 0.05 || rt.Verdict != VerdictUnknown {
			t.Errorf("%s: p %.3f Holm %.3f verdict %s; want significant alone, not over 5 cases, not yet known", cc.ID, rt.P, rt.PHolm, rt.Verdict)
		}
	}
	if !slices.ContainsFunc(cmp.Notes, func(n string) bool { return strings.Contains(n, "not over the 5 cases compared (Holm-adjusted") }) {
		t.Errorf("notes %q", cmp.Notes)
	}
}

// TestCompareSpecs compares two runs of two node specs: cases match by id,
// Node included, so each spec is compared with itself only.
func TestCompareSpecs(t *testing.T) {
	base := fixtureSpecReport()
	nw := fixtureSpecReport()
	nw.RunID = "new"
	// In the new run the patched spec got faster than in base on Concurrency=10.
	for i, c := range nw.Cases {
		if c.ID == "Node=patched/Concurrency=10/TotalPayments=4" {
			for j := range c.Iterations {
				nw.Cases[i].Iterations[j].Seconds /= 1.3
				nw.Cases[i].Iterations[j].PaymentsPerSec *= 1.3
			}
			for j := range c.Launches {
				nw.Cases[i].Launches[j].MeanSeconds /= 1.3
			}
		}
	}
	cmp, err := Compare(base, nw, DefaultAlpha, DefaultNoise, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, cc := range cmp.Cases {
		got[cc.ID] = cc.Ratio.Verdict
	}
	// Four launches a side spread by ≈4%, unpaired: the unchanged cases
	// cannot exclude 5%; 30% faster shows.
	want := map[string]string{
		"Node=v0.21.0-beta/Concurrency=10/TotalPayments=4": VerdictUnknown,
		"Node=v0.21.0-beta/Concurrency=20/TotalPayments=4": VerdictUnknown,
		"Node=patched/Concurrency=10/TotalPayments=4":      VerdictFaster,
		"Node=patched/Concurrency=20/TotalPayments=4":      VerdictUnknown,
	}
	if !reflect.DeepEqual(got, want) || len(cmp.Warnings) != 0 || slices.ContainsFunc(cmp.Notes, func(n string) bool { return strings.Contains(n, "only in") }) {
		t.Errorf("verdicts %v warnings %q notes %q", got, cmp.Warnings, cmp.Notes)
	}
	// A run of the baseline spec alone against the two-spec run: its cases
	// (ids without Node) match the same spec's, the patched ones are new.
	one := fixtureReport()
	one.Nodes[0].Label = "v0.21.0-beta"
	Summarize(&one, fixtureRecords())
	cmp, err = Compare(one, base, DefaultAlpha, DefaultNoise, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, cc := range cmp.Cases {
		ids = append(ids, cc.ID)
	}
	wantIDs := []string{"Node=v0.21.0-beta/Concurrency=10/TotalPayments=4", "Node=v0.21.0-beta/Concurrency=20/TotalPayments=4"}
	if !reflect.DeepEqual(ids, wantIDs) || !slices.Contains(cmp.Notes, "Node=patched/Concurrency=10/TotalPayments=4: only in new") {
		t.Errorf("cases %q notes %q", ids, cmp.Notes)
	}
	// Another version's one-spec run shares no spec label: nothing matches.
	other := fixtureReport()
	other.Nodes[0].Version = "v0.20.2-beta"
	Summarize(&other, fixtureRecords())
	if _, err := Compare(other, base, DefaultAlpha, DefaultNoise, 0.05); err == nil {
		t.Error("a v0.20.2-beta run matched v0.21.0-beta cases")
	}
}

func TestCompareWarnsOnSetupDifferences(t *testing.T) {
	base := fixtureSpecReport()
	nw := fixtureSpecReport()
	nw.Backend = "compose"
	nw.Env.CPU, nw.Env.Cores = "Intel Xeon", 8
	nw.Nodes[1].Key, nw.Nodes[1].Commit = "0123456789abcdef", "ffffeeeeddddcccc"
	nw.Nodes[1].Flags = []string{"--bitcoin.simnet", "--db.backend=bbolt"}
	nw.Nodes[0].Label = "v0.20.2-beta"
	cmp, err := Compare(base, nw, DefaultAlpha, DefaultNoise, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"backends differ: base local, new compose",
		"machines differ: base AMD EPYC (2 cores), new Intel Xeon (8 cores)",
		"node spec lnd v0.21.0-beta is only in base",
		"node spec lnd patched differs: build key b7c4e2a1f0d9 → 0123456789ab; commit 9e8d7c6b5a4f → ffffeeeedddd; flags -[--db.batch-commit-interval=10ms] +[]",
		"node spec lnd v0.20.2-beta is only in new",
	}
	if !reflect.DeepEqual(cmp.Warnings, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(cmp.Warnings, "\n"), strings.Join(want, "\n"))
	}
	var b bytes.Buffer
	if err := CompareText(&b, cmp); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "warning: backends differ") {
		t.Errorf("warnings not first:\n%s", b.String())
	}
	// Old runs without labels match by position.
	old := fixtureReport()
	if d := setupDifferences(old, old); len(d) != 0 {
		t.Errorf("same run differs: %q", d)
	}
}

// An older folder's unlabelled spec and a newer folder's labelled spec of
// the same build are one spec (issue 22: "only in base" and "only in new").
func TestCompareMatchesAnUnlabelledSpecWithItsLabelledBuild(t *testing.T) {
	old := fixtureReport() // lnd v0.21.0-beta, no label, no build string
	nw := fixtureReport()
	nw.Nodes = []record.NodeInfo{{Label: "v0.21.0-beta", Implementation: "lnd", Version: "v0.21.0-beta", Build: "lnd@v0.21.0-beta",
		Flags: old.Nodes[0].Flags}}
	if d := setupDifferences(old, nw); len(d) != 0 {
		t.Errorf("same build: %q", d)
	}
	if d := setupDifferences(nw, old); len(d) != 0 {
		t.Errorf("same build, the other way: %q", d)
	}
	// Another build still matches (one spec each) and says what differs.
	nw.Nodes[0].Version, nw.Nodes[0].Build, nw.Nodes[0].Label = "v0.20.2-beta", "lnd@v0.20.2-beta", "v0.20.2-beta"
	want := []string{"node spec lnd v0.21.0-beta differs: version v0.21.0-beta → v0.20.2-beta; build lnd@v0.21.0-beta → lnd@v0.20.2-beta"}
	if d := setupDifferences(old, nw); !reflect.DeepEqual(d, want) {
		t.Errorf("another build: %q", d)
	}
	// Of two labelled specs, the unlabelled one matches its own build.
	two := fixtureReport()
	two.Nodes = []record.NodeInfo{{Label: "v0.20.2-beta", Implementation: "lnd", Version: "v0.20.2-beta", Build: "lnd@v0.20.2-beta", Flags: old.Nodes[0].Flags},
		{Label: "v0.21.0-beta", Implementation: "lnd", Version: "v0.21.0-beta", Build: "lnd@v0.21.0-beta", Flags: old.Nodes[0].Flags}}
	if d := setupDifferences(old, two); !reflect.DeepEqual(d, []string{"node spec lnd v0.20.2-beta is only in new"}) {
		t.Errorf("two specs: %q", d)
	}
}
