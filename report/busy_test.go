package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/usage/cost"
)

// A case that ran on a busy machine, or whose baseline case did, keeps
// its verdict but says it is unreliable: in its Ratio, the verdict lines,
// the table's Verdict cell and the warnings; a quiet pair says nothing.
func TestBusyMarksTheVerdict(t *testing.T) {
	quiet := &cost.Outside{Cores: 0.03, HostShare: 0.015, HostCores: 2}
	busy := &cost.Outside{Cores: 0.9, HostShare: 0.45, HostCores: 2, Busy: true}
	for _, tc := range []struct {
		name             string
		base, new1, new2 *cost.Outside
		wantNew1         bool
		wantWarnings     int
	}{
		{"quiet", quiet, quiet, quiet, false, 0},
		{"new case busy", quiet, busy, quiet, true, 1},
		{"baseline busy", busy, quiet, quiet, true, 1},
		// Concurrency=2 has no baseline case: its warning alone.
		{"case without baseline busy", quiet, quiet, busy, false, 1},
		{"no host samples", nil, nil, nil, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Report{Manifest: record.Manifest{Nodes: []record.NodeInfo{{Label: "base", Baseline: true}, {Label: "new"}}}, Cases: []Row{
				specRow("base", "1", 1, 1.1, 1.2, 1.3), specRow("new", "1", 2, 2.2, 2.4, 2.6), specRow("new", "2", 1, 2, 3, 4)}}
			fillRatios(&r)
			before := *r.Cases[1].Ratio
			r.Resources = []cost.Case{{ID: r.Cases[0].ID, Outside: tc.base}, {ID: r.Cases[1].ID, Outside: tc.new1}, {ID: r.Cases[2].ID, Outside: tc.new2}}
			markBusyRatios(&r)
			markBusyRatios(&r) // idempotent: LoadResources may run again
			rt := r.Cases[1].Ratio
			if rt.Verdict != before.Verdict || rt.Of != before.Of {
				t.Errorf("verdict changed: %s %g → %s %g", before.Verdict, before.Of, rt.Verdict, rt.Of)
			}
			notes := len(slices.DeleteFunc(slices.Clone(rt.Notes), func(n string) bool { return !strings.HasPrefix(n, BusyNote) }))
			if rt.Unreliable != tc.wantNew1 || notes != map[bool]int{true: 1}[tc.wantNew1] {
				t.Errorf("unreliable %v notes %q, want unreliable %v once", rt.Unreliable, rt.Notes, tc.wantNew1)
			}
			lines := strings.Join(VerdictLines(r), "\n")
			if strings.Contains(lines, BusyNote) != tc.wantNew1 {
				t.Errorf("verdict lines:\n%s", lines)
			}
			if cell := ratioCells(rt); strings.HasSuffix(cell[len(cell)-1], "("+BusyNote+")") != tc.wantNew1 {
				t.Errorf("verdict cell %q", cell[len(cell)-1])
			}
			var warn []string
			for _, w := range AllWarnings(r) {
				if strings.HasPrefix(w, "busy machine:") {
					warn = append(warn, w)
				}
			}
			if len(warn) != tc.wantWarnings {
				t.Errorf("busy warnings %q, want %d", warn, tc.wantWarnings)
			}
		})
	}
}

// lnbench compare warns, per case, about a side that ran on a busy machine.
func TestCompareWarnsOnBusyMachine(t *testing.T) {
	base := run("base", map[string]float64{"a": 1, "b": 1}, "a", "b")
	nw := run("new", map[string]float64{"a": 1, "b": 1}, "a", "b")
	base.Resources = []cost.Case{{ID: "a", Outside: &cost.Outside{Cores: 0.9, Busy: true}}, {ID: "b", Outside: &cost.Outside{Cores: 0.01}}}
	nw.Resources = []cost.Case{{ID: "b", Outside: &cost.Outside{Cores: 1.2, Busy: true}}}
	cmp, err := Compare(base, nw, 0.05, 0.02, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a: unreliable: busy machine in the base run (other processes used 0.90 cores)",
		"b: unreliable: busy machine in the new run (other processes used 1.20 cores)"}
	var got []string
	for _, w := range cmp.Warnings {
		if strings.Contains(w, "busy") {
			got = append(got, w)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
}
