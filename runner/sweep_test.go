package runner

import (
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/sweep"
)

// TestObserveSweepFromRecords: a step whose payments on disk break the p99
// bound skips the later steps of its group, not those of another group.
func TestObserveSweepFromRecords(t *testing.T) {
	s := scenario.Default()
	s.Params = []scenario.Param{{Name: "Concurrency", Values: []string{"1", "2"}}, {Name: "TotalPayments", Values: []string{"2"}}, {Name: "Rate", Values: []string{"10", "20"}}}
	s.Job = scenario.Job{LaunchCount: 1, IterationCount: 1, InvocationCount: 1}
	s.Sweep = &scenario.Sweep{Param: "Rate", MaxP99Ms: 100}
	cases := s.Cases() // Concurrency=1/…/Rate=10, …/Rate=20, Concurrency=2/…
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	recs := map[string][]result.Record{}
	for _, c := range []struct {
		c   scenario.Case
		lat time.Duration
	}{{cases[0], 500 * time.Millisecond}, {cases[2], 10 * time.Millisecond}} {
		for j := range 2 {
			recs[c.c.ID()] = append(recs[c.c.ID()], result.Record{Case: c.c.ID(), Phase: result.Measure, Seq: j, Start: t0, End: t0.Add(c.lat), Status: result.Succeeded})
		}
	}
	sw := sweep.New(s.Sweep)
	observeSweep(sw, cases[0], recs[cases[0].ID()], s)
	observeSweep(sw, cases[2], recs[cases[2].ID()], s)
	if !sw.Skip(cases[1].Values) {
		t.Errorf("%s not skipped after %s broke the bound", cases[1].ID(), cases[0].ID())
	}
	if sw.Skip(cases[3].Values) {
		t.Errorf("%s skipped although its group stayed within the bound", cases[3].ID())
	}
	observeSweep(nil, cases[0], recs[cases[0].ID()], s) // no sweep configured: nothing to do
}
