package runner

import (
	"fmt"

	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/scenario"
)

// designOf is the run's design as the manifest records it; nil for one spec.
func designOf(s scenario.Scenario, plans []networkPlan, noCPUSets string) *record.Design {
	if len(s.Specs()) < 2 {
		return nil
	}
	c := s.Compare
	d := &record.Design{Name: s.Design(), Order: c.OrderOrDefault(), Seed: c.Seed,
		Rounds: launchRounds(specLabels(s), c.OrderOrDefault(), c.Seed, 0, s.Job.LaunchCount)}
	d.Fallback = c.Fallback
	switch d.Name {
	case scenario.DesignInterleaved:
		d.Iterations = "rounds of one iteration per network in the launch order's pattern"
		if d.Order == scenario.OrderShuffled {
			d.Iterations += ", seeded per pair and case from the run's seed"
		} else {
			d.Iterations += " (A B, B A, …)"
		}
		d.Iterations += "; warm-ups first; a waiting network is sampled as idle"
	case scenario.DesignDuetSolo:
		solo := scenario.SoloIterations(s.Job.IterationCount)
		d.Iterations = fmt.Sprintf("warm-ups and %d iterations in duet (both at once, every CPU shared: the verdict's direction), then %d alone, alternating (A B, B A, …: the size and every figure of the table)",
			s.Job.IterationCount-solo, solo)
	}
	if s.Freezes() {
		d.Frozen = true
		d.Iterations += "; the waiting networks frozen (every process paused) while one runs alone"
	}
	switch d.Name {
	case scenario.DesignDuet:
		d.CPUs = describeCPUs(c.CPUs, allowedCPUs(), len(s.Specs()), maxActors(plans))
		if noCPUSets != "" {
			d.CPUs = fmt.Sprintf("shared: %s, so no CPU set per network", noCPUSets)
		}
	}
	if c.UntilKnown {
		d.UntilKnown, d.MaxLaunches = true, c.MaxLaunchesOrDefault()
		d.Looks = looks(s.Job.LaunchCount, d.MaxLaunches)
	}
	return d
}

// maxActors is the most actors (nodes and the chain) a planned network has.
func maxActors(plans []networkPlan) int {
	most := 0
	for _, p := range plans {
		most = max(most, len(p.topo.Nodes)+1)
	}
	return most
}
