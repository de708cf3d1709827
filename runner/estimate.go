package runner

import (
	"fmt"
	"strings"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/node/drivers"
	"github.com/lnbench/lnbench/scenario"
)

// Rough figures measured on a 2-core machine (docs/verdicts.md quotes the
// estimates they give): used only to warn before a long run, never
// reported as results.
const (
	setupPerNetwork     = 10 * time.Second
	setupPerExtraNode   = 2 * time.Second
	typicalPaymentsPerS = 60.0
	restorePerExtraNode = time.Second
	// A payment's time with nothing else in flight: LND AlicePaysBob at
	// Concurrency 1 took 85 ms at the median (docs/measured.md, CLN's
	// benchmark shapes, payment_speed), so a closed loop of c workers pays
	// at most c/85 ms a second until the typical rate bounds it.
	paymentAlone = 85 * time.Millisecond
)

// Estimate guesses a scenario's wall time on a backend: setup and close
// of each network plus its cases' iterations and the gaps between them
// (a timed job: its warm-up plus its Duration). It returns a warning when
// the params' product explodes (and what an imported graph file left
// out), and the error of a case whose network cannot be planned.
func Estimate(s scenario.Scenario, o backend.Overhead) (networks int, d time.Duration, warning string, err error) {
	plans, err := plan(s)
	if err != nil {
		return 0, 0, "", err
	}
	builtin := drivers.Builtin()
	d = planTime(s, o, plans, func(p networkPlan) time.Duration { return buildTime(p, builtin) })
	runs := len(s.Cases()) * s.Job.LaunchCount
	if runs > 32 || d > time.Hour {
		what := fmt.Sprintf("%d cases", runs)
		if s.Job.LaunchCount > 1 {
			what = fmt.Sprintf("%d case runs (%d cases × %d launches)", runs, len(s.Cases()), s.Job.LaunchCount)
		}
		warning = fmt.Sprintf("warning: %s, roughly %v: reduce the param lists or use --quick if this is not intended", what, d.Round(time.Minute))
	}
	if notes := topologyNotes(plans); len(notes) > 0 {
		warning = strings.TrimPrefix(warning+"\n"+strings.Join(notes, "\n"), "\n")
	}
	return len(plans), d, warning, nil
}

// buildTime is a network's setup from nothing, with twice the longest
// wait of its nodes for a mined block (funds, then channels).
func buildTime(p networkPlan, drv node.Drivers) time.Duration {
	var blockWait time.Duration
	for _, nd := range p.topo.Nodes {
		if d, err := drv.Lookup(nd.Implementation); err == nil {
			blockWait = max(blockWait, d.BlockWait)
		}
	}
	return setupPerNetwork + time.Duration(len(p.topo.Nodes)-2)*setupPerExtraNode + 2*blockWait
}

// restoreTime is a network's setup from a snapshot: mostly its nodes'
// start on their data (docs/measured.md, Snapshots: on local 2 LND nodes
// 2.4 s, 12 in 10.4 s).
func restoreTime(o backend.Overhead, p networkPlan) time.Duration {
	return o.Restore + time.Duration(len(p.topo.Nodes)-2)*restorePerExtraNode
}

// planTime is the plans' setup (setup says each network's), cases and
// close.
func planTime(s scenario.Scenario, o backend.Overhead, plans []networkPlan, setup func(networkPlan) time.Duration) time.Duration {
	var d time.Duration
	for _, p := range plans {
		d += setup(p) + o.Close
		for _, c := range p.cases {
			d += caseTime(s.Job, c.c.Workload, o.BetweenIterations)
		}
	}
	return d
}

// EstimateRestored is Estimate under snapshots (opts.Snapshots): each
// network restored (those of opts.Snapshots.Specs when set), and a
// snapshot the cache lacks made once first (a build). It says how many
// networks restore and how many of their snapshots the cache holds.
func EstimateRestored(opts Options, o backend.Overhead) (d time.Duration, cached, restored int, err error) {
	s := opts.Scenario
	plans, err := plan(s)
	if err != nil {
		return 0, 0, 0, err
	}
	if opts.Drivers == nil {
		opts.Drivers = drivers.Builtin()
	}
	configs, _, err := NodeSetup(opts.Drivers, s, opts.Builds)
	if err != nil {
		return 0, 0, 0, err
	}
	made := map[string]bool{}
	d = planTime(s, o, plans, func(p networkPlan) time.Duration {
		if !opts.Snapshots.restores(p) {
			return buildTime(p, opts.Drivers)
		}
		restored++
		_, key := snapshotOf(opts, opts.BackendName, p, configs)
		if _, err := opts.Snapshots.Cache.Find(key); err == nil {
			cached++
		} else if !made[key] {
			made[key] = true
			return buildTime(p, opts.Drivers) + restoreTime(o, p)
		}
		return restoreTime(o, p)
	})
	return d, cached, restored, nil
}

// caseTime is one case's warm-up and measured iterations, each followed
// by the backend's gap.
func caseTime(job scenario.Job, w scenario.Workload, gap time.Duration) time.Duration {
	perSecond := closedLoopRate(w.Concurrency)
	if w.OpenLoop() {
		perSecond = w.PerSecond(1) // a lower bound when set per pair
	}
	iteration := time.Duration(float64(w.TotalPayments*job.InvocationCount)/perSecond*float64(time.Second)) + gap
	if job.Timed() {
		return time.Duration(job.WarmupCount)*iteration + job.Duration
	}
	return time.Duration(job.WarmupCount+job.IterationCount) * iteration
}

// closedLoopRate is the payments a second of c workers: each one's
// payments back to back, up to the typical rate where they saturate.
func closedLoopRate(c int) float64 {
	return min(typicalPaymentsPerS, float64(max(c, 1))/paymentAlone.Seconds())
}

// topologyNotes are the networks' topology notes (a sampled graph file),
// each once: the plan line and the report say what did not run.
func topologyNotes(plans []networkPlan) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range plans {
		if p.topo.Note == "" {
			continue
		}
		line := fmt.Sprintf("topology %s: %s", p.topo.Name, p.topo.Note)
		if !seen[line] {
			seen[line] = true
			out = append(out, line)
		}
	}
	return out
}
