package runner

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/lnbench/lnbench/result"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/sweep"
)

// TestObserveSweepFromStream: a step whose payments on disk break the p99
// bound skips the later steps of its group, not those of another group.
func TestObserveSweepFromStream(t *testing.T) {
	s := scenario.Default()
	s.Params = []scenario.Param{{Name: "Concurrency", Values: []string{"1", "2"}}, {Name: "TotalPayments", Values: []string{"2"}}, {Name: "Rate", Values: []string{"10", "20"}}}
	s.Job = scenario.Job{LaunchCount: 1, IterationCount: 1, InvocationCount: 1}
	s.Sweep = &scenario.Sweep{Param: "Rate", MaxP99Ms: 100}
	cases := s.Cases() // Concurrency=1/…/Rate=10, …/Rate=20, Concurrency=2/…
	path := filepath.Join(t.TempDir(), "payments.jsonl")
	w, err := result.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		c   scenario.Case
		lat time.Duration
	}{{cases[0], 500 * time.Millisecond}, {cases[2], 10 * time.Millisecond}} {
		for j := range 2 {
			if err := w.Write(result.Record{Case: c.c.ID(), Phase: result.Measure, Seq: j, Start: t0, End: t0.Add(c.lat), Status: result.Succeeded}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	sw := sweep.New(s.Sweep)
	observeSweep(sw, cases[0], path, s)
	observeSweep(sw, cases[2], path, s)
	if !sw.Skip(cases[1].Values) {
		t.Errorf("%s not skipped after %s broke the bound", cases[1].ID(), cases[0].ID())
	}
	if sw.Skip(cases[3].Values) {
		t.Errorf("%s skipped although its group stayed within the bound", cases[3].ID())
	}
	observeSweep(nil, cases[0], path, s) // no sweep configured: nothing to do
}
