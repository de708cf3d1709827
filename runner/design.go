package runner

import (
	"fmt"
	"runtime"

	"github.com/lnbench/lnbench/runrecord"
	"github.com/lnbench/lnbench/scenario"
)

// designOf is the run's design as the manifest records it; nil for one spec.
func designOf(s scenario.Scenario) *runrecord.Design {
	if len(s.Specs()) < 2 {
		return nil
	}
	c := s.Compare
	d := &runrecord.Design{Name: s.Design(), Order: c.OrderOrDefault(), Seed: c.Seed,
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
	case scenario.DesignDuet:
		d.CPUs = duetCPUs(runtime.NumCPU(), len(s.Specs()))
	}
	if c.UntilKnown {
		d.UntilKnown, d.MaxLaunches = true, c.MaxLaunchesOrDefault()
		d.Looks = looks(s.Job.LaunchCount, d.MaxLaunches)
	}
	return d
}

// duetCPUs says how duet's networks share the cores. A CPU set per
// network needs cores enough that each network's nodes keep the cores a
// sequential run would give them; below that, pinning would measure a
// smaller machine than the one the verdict is about, so they share.
func duetCPUs(cores, networks int) string {
	return fmt.Sprintf("shared: %d networks on the host's %d cores (no CPU set per network; each sees the other's load, as both specs see the same drift)", networks, cores)
}
