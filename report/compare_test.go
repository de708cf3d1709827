package report

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/runrecord"
	"github.com/lnbench/lnbench/stats"
)

// run is a report whose cases each have 10 complete iterations of about
// secs[id] seconds and 10/secs payments/s.
func run(id string, secs map[string]float64, order ...string) Report {
	r := Report{Manifest: runrecord.Manifest{RunID: id}}
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
	for _, want := range []string{"+20.0%", "regressed", "improved", "note: gone: only in base", "alpha=0.05 noise=2.0%",
		"Payments/s (median): base", "medians over the complete iterations (one iteration's payments/s: its successes / its wall time)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	if _, err := Compare(base, run("other", map[string]float64{"c": 1}, "c"), 0.05, 0.02); err == nil {
		t.Error("no case in common should be an error")
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
		}
	}
	cmp, err := Compare(base, nw, DefaultAlpha, DefaultNoise)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]stats.Verdict{}
	for _, cc := range cmp.Cases {
		got[cc.ID] = cc.Time.Verdict
	}
	want := map[string]stats.Verdict{
		"Node=v0.21.0-beta/Concurrency=10/TotalPayments=4": stats.WithinNoise,
		"Node=v0.21.0-beta/Concurrency=20/TotalPayments=4": stats.WithinNoise,
		"Node=patched/Concurrency=10/TotalPayments=4":      stats.Improved,
		"Node=patched/Concurrency=20/TotalPayments=4":      stats.WithinNoise,
	}
	if !reflect.DeepEqual(got, want) || len(cmp.Warnings) != 0 || len(cmp.Notes) != 0 {
		t.Errorf("verdicts %v warnings %q notes %q", got, cmp.Warnings, cmp.Notes)
	}
	// A run of the baseline spec alone against the two-spec run: its cases
	// (ids without Node) match the same spec's, the patched ones are new.
	one := fixtureReport()
	one.Nodes[0].Label = "v0.21.0-beta"
	Summarize(&one, fixtureRecords())
	cmp, err = Compare(one, base, DefaultAlpha, DefaultNoise)
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
	if _, err := Compare(other, base, DefaultAlpha, DefaultNoise); err == nil {
		t.Error("a v0.20.2-beta run matched v0.21.0-beta cases")
	}
}

func TestCompareTooFewSamples(t *testing.T) {
	base := run("base", map[string]float64{"a": 1}, "a")
	nw := run("new", map[string]float64{"a": 1.5}, "a")
	// --quick runs: 3 complete iterations each.
	base.Cases[0].Iterations = base.Cases[0].Iterations[:3]
	nw.Cases[0].Iterations = nw.Cases[0].Iterations[:3]
	cmp, err := Compare(base, nw, DefaultAlpha, DefaultNoise)
	if err != nil {
		t.Fatal(err)
	}
	if tm := cmp.Cases[0].Time; !tm.TooFewSamples || tm.Verdict != stats.Inconclusive || tm.Change < 0.49 || tm.Change > 0.51 {
		t.Errorf("time comparison %+v", tm)
	}
	var b bytes.Buffer
	if err := CompareText(&b, cmp); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "+50.0%") || strings.Count(b.String(), "not significant (too few samples)") != 2 || strings.Contains(b.String(), "+0.0%") {
		t.Errorf("text:\n%s", b.String())
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
	cmp, err := Compare(base, nw, DefaultAlpha, DefaultNoise)
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
	nw.Nodes = []runrecord.NodeInfo{{Label: "v0.21.0-beta", Implementation: "lnd", Version: "v0.21.0-beta", Build: "lnd@v0.21.0-beta",
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
	two.Nodes = []runrecord.NodeInfo{{Label: "v0.20.2-beta", Implementation: "lnd", Version: "v0.20.2-beta", Build: "lnd@v0.20.2-beta", Flags: old.Nodes[0].Flags},
		{Label: "v0.21.0-beta", Implementation: "lnd", Version: "v0.21.0-beta", Build: "lnd@v0.21.0-beta", Flags: old.Nodes[0].Flags}}
	if d := setupDifferences(old, two); !reflect.DeepEqual(d, []string{"node spec lnd v0.20.2-beta is only in new"}) {
		t.Errorf("two specs: %q", d)
	}
}
