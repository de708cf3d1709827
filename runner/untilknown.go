package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/result"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/sweep"
)

// roundsPerLook is how many launch rounds until-known adds between two
// looks at the verdicts: a whole A B B A block, so every look sees
// balanced launches.
const roundsPerLook = 2

// designOf is the run's design as the report records it; nil for one spec.
func designOf(s scenario.Scenario) *report.Design {
	if len(s.Specs()) < 2 {
		return nil
	}
	c := s.Compare
	d := &report.Design{Name: s.Design(), Order: c.OrderOrDefault(), Seed: c.Seed,
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

// looks is how many times until-known may read the verdicts: after the
// planned launches, then after each block up to the cap.
func looks(planned, max int) int {
	return 1 + (max-planned+roundsPerLook-1)/roundsPerLook
}

// untilKnown adds blocks of launch rounds while some verdict against the
// baseline is not yet known, up to the cap, and records why it stopped.
// Each look tests at alpha/looks (report.Design.Looks), so stopping at the
// first look that happens to be significant cannot raise the false-positive
// rate above alpha (a Bonferroni bound over the looks).
func untilKnown(ctx context.Context, opts Options, run Run, w *result.Writer, fw *faults.Writer, rep *report.Report,
	sw *sweep.Sweep, configs map[string]backend.NodeConfig) error {
	s := opts.Scenario
	if rep.Design == nil || !rep.Design.UntilKnown {
		return nil
	}
	d := rep.Design
	for launches := s.Job.LaunchCount; ; launches += roundsPerLook {
		unknown, err := unknownVerdicts(run.Dir, *rep)
		if err != nil {
			return err
		}
		if unknown == 0 {
			d.Stopped = fmt.Sprintf("every verdict known after %d launches per spec", launches)
			return nil
		}
		if launches >= d.MaxLaunches {
			d.Stopped = fmt.Sprintf("cap reached: %d launches per spec, %d verdict(s) not yet known", launches, unknown)
			return nil
		}
		next := min(launches+roundsPerLook, d.MaxLaunches)
		fmt.Fprintf(opts.Log, "until known: %d verdict(s) not yet known after %d launches per spec; adding rounds %d–%d\n", unknown, launches, launches+1, next)
		plans, err := planRounds(s, launches, next)
		if err != nil {
			return err
		}
		d.Rounds = append(d.Rounds, launchRounds(specLabels(s), d.Order, d.Seed, launches, next)...)
		if err := runPlans(ctx, opts, run, plans, w, fw, rep, sw, configs); err != nil {
			d.Stopped = "interrupted"
			return err
		}
	}
}

// unknownVerdicts counts the compared cases whose verdict is not known yet
// from what payments.jsonl holds now.
func unknownVerdicts(dir string, rep report.Report) (int, error) {
	recs, err := result.ReadFile(filepath.Join(dir, "payments.jsonl"))
	if err != nil {
		return 0, fmt.Errorf("reading results: %v", err)
	}
	report.Summarize(&rep, recs)
	return countUnknown(rep), nil
}

// countUnknown counts cases compared with the baseline without a verdict.
func countUnknown(rep report.Report) int {
	n := 0
	for _, c := range rep.Cases {
		if c.Ratio != nil && (c.Ratio.Verdict == report.VerdictUnknown || c.Ratio.Verdict == report.VerdictTooFew) {
			n++
		}
	}
	return n
}
