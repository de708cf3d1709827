package record

import (
	"errors"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage/costcurve"
)

func TestManifestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a folder without run.json: %v, want os.ErrNotExist (an older folder)", err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	want := Manifest{RunID: "r1", Started: t0, Finished: t0.Add(time.Minute), Scenario: scenario.Default(), Backend: "local",
		Nodes:    []NodeInfo{{Label: "a", Baseline: true, Implementation: "lnd", Version: "v0.21.0-beta", Flags: []string{"--x"}}},
		Setup:    []Setup{{Network: "launch1", Phase: "chain", Seconds: 0.5}},
		Costs:    []NetworkCost{{Network: "launch1", AtReady: costcurve.AtReady{Nodes: 2, RSSBytes: 1 << 20}}},
		Forwards: []Forward{{Network: "launch1", Node: "carol", Count: 3}},
		Design:   &Design{Name: scenario.DesignDuet, Order: "abba", Rounds: [][]string{{"a", "b"}, {"b", "a"}}},
		Warnings: []string{"a note"}, WallSeconds: 60}
	if err := Write(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\ngot  %+v\nwant %+v", got, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the folder, want run.json alone (no temporary file left)", len(entries))
	}
}

func TestDesignLine(t *testing.T) {
	d := Design{Name: scenario.DesignInterleaved, Iterations: "A B, B A", Order: "abba", Rounds: [][]string{{"a", "b"}, {"b", "a"}},
		UntilKnown: true, MaxLaunches: 6, Looks: 3, Stopped: "cap reached"}
	want := "Design: interleaved (each launch round's networks up together, measured iterations alternating: A B, B A), 2 launch round(s) in abba order: a b | b a; until known, at most 6 launches per spec, 3 looks at alpha/3 each: cap reached"
	if got := d.Line(); got != want {
		t.Errorf("line\n%s\nwant\n%s", got, want)
	}
	if a := d.Alpha(0.05); a != 0.05/3 {
		t.Errorf("alpha %g over 3 looks", a)
	}
}
