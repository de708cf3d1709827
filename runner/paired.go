package runner

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage"
)

// paired tells whether a launch round's networks run together (the
// interleaved and duet designs): they then share the machine's drift.
func paired(s scenario.Scenario) bool { return s.Paired() }

// pairsOf groups plans by pair, in plan order; a pair's networks keep the
// launch round's order.
func pairsOf(plans []networkPlan) [][]networkPlan {
	var out [][]networkPlan
	index := map[string]int{}
	for _, p := range plans {
		i, ok := index[p.pair]
		if !ok {
			i = len(out)
			index[p.pair] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], p)
	}
	return out
}

// runPairs runs each launch pair: its networks up together, their cases'
// iterations scheduled by the design, then torn down together.
func (e *execution) runPairs(ctx context.Context, plans []networkPlan) error {
	opts := e.opts
	pairs := pairsOf(plans)
	for pi, pair := range pairs {
		if err := ctx.Err(); err != nil {
			return err
		}
		var names []string
		for _, p := range pair {
			names = append(names, p.name)
		}
		fmt.Fprintf(opts.Log, "launch pair %d/%d (%s, %s): %s\n", pi+1, len(pairs), pair[0].pair, opts.Scenario.Design(), strings.Join(names, " + "))
		if err := e.runPair(ctx, pair); err != nil {
			return err
		}
	}
	return nil
}

func (e *execution) runPair(ctx context.Context, pair []networkPlan) (err error) {
	opts, run, w, rec, sw, configs := e.opts, e.run, e.w, e.rec, e.sw, e.configs
	s := opts.Scenario
	var live []*liveNetwork
	release := func() {}
	defer func() {
		err = withTeardown(err, closeTogether(opts, run, live, rec))
		release()
	}()
	var sets [][]int
	if s.Design() == scenario.DesignDuet && opts.NoCPUSets == "" {
		sets = cpuSets(s.Compare.CPUs, allowedCPUs(), len(pair), maxActors(pair))
	}
	pair = slices.Clone(pair) // CPU sets are this round's
	for k := range pair {
		p := &pair[k]
		fmt.Fprintf(opts.Log, "network %s: %s\n", p.name, p.topo)
		if sets != nil {
			p.cpus = sets[k]
			fmt.Fprintf(opts.Log, "network %s: on CPUs %s\n", p.name, backend.CPUList(p.cpus))
			if rec.Design != nil {
				rec.Design.CPUSets = append(rec.Design.CPUSets, record.CPUSet{Network: p.name, CPUs: backend.CPUList(p.cpus)})
			}
		}
	}
	live, release, err = openTogether(ctx, opts, run, pair, rec, configs)
	if err != nil {
		return err
	}
	watches := make([]context.Context, len(live))
	for k, ln := range live {
		watches[k] = ln.watch.ctx
	}
	for ci := range pair[0].cases {
		crs := make([]caseRun, len(live))
		for k := range live {
			crs[k] = pair[k].cases[ci]
		}
		// A step runs on every network of the pair unless every spec's
		// sweep group already broke its bound.
		if !slices.ContainsFunc(crs, func(cr caseRun) bool { return !sw.Skip(cr.c.Values) }) {
			skipSwept(sw, rec, crs[0])
			continue
		}
		ids := make([]string, len(crs))
		for k, cr := range crs {
			ids[k] = cr.c.ID()
		}
		opts.Progress.Case(caseIndex(rec, crs[0]), countCases(s), strings.Join(ids, " + "))
		// A death in any network of the round ends the case.
		caseCtx, caseDone := anyDone(ctx, watches...)
		execs := make([]*caseExec, len(live))
		for k, ln := range live {
			ln.rs.startCase(caseCtx, crs[k].c)
			execs[k] = newCaseExec(opts, ln, crs[k], w, nil)
			execs[k].tag = " [" + crs[k].c.Node + "]"
		}
		restoreProcs := limitProcs() // once per case: duet's iterations run on goroutines of this one
		seed := iterationSeed(s.Compare.Seed, pair[0].pair, crs[0].c.PairKey(), ci)
		switch s.Design() {
		case scenario.DesignDuet:
			err = duet(caseCtx, s.Job, execs)
		case scenario.DesignDuetSolo:
			err = duetSolo(caseCtx, s, execs, seed)
		default:
			err = interleave(caseCtx, s, execs, seed)
		}
		restoreProcs()
		for _, ln := range live {
			ln.rs.endCase(caseCtx)
		}
		caseDone()
		for k := len(live) - 1; k >= 0; k-- {
			err = live[k].watch.explain(err)
		}
		if err != nil {
			return err
		}
		for k, cr := range crs {
			observeSweep(sw, cr.c, execs[k].records, s)
		}
	}
	return nil
}

// interleave runs every network's warm-ups, then the measured iterations
// one network at a time in rounds: each round runs every network once, in
// the launch order's pattern (abba: A B, B A, …; shuffled: mirrored pairs
// of seeded rounds), so no network measures all its iterations first. The
// networks waiting are sampled as idle meanwhile: what an idle network
// costs the measured one is in the report.
func interleave(ctx context.Context, s scenario.Scenario, execs []*caseExec, seed uint64) error {
	job := s.Job
	for _, e := range execs {
		for i := 0; i < job.WarmupCount; i++ {
			if err := e.iteration(ctx, result.Warmup, i, job.WarmupCount); err != nil {
				return err
			}
		}
	}
	return alternate(ctx, s, execs, seed, result.Measure, job.IterationCount)
}

// duetSolo runs the warm-ups and the first part of the iterations in duet
// (every network at once, phase result.Duet: the direction test's), then
// the measured iterations one network at a time as interleave does (each
// network alone: the size and the table's figures).
func duetSolo(ctx context.Context, s scenario.Scenario, execs []*caseExec, seed uint64) error {
	job := s.Job
	solo := scenario.SoloIterations(job.IterationCount)
	if err := together(ctx, execs, result.Warmup, job.WarmupCount); err != nil {
		return err
	}
	if err := together(ctx, execs, result.Duet, job.IterationCount-solo); err != nil {
		return err
	}
	return alternate(ctx, s, execs, seed, result.Measure, solo)
}

// alternate runs count iterations of phase one network at a time, in
// rounds of the launch order's pattern; the waiting networks are sampled
// as idle.
func alternate(ctx context.Context, s scenario.Scenario, execs []*caseExec, seed uint64, phase string, count int) error {
	for i, round := range iterationRounds(len(execs), s.Compare.OrderOrDefault(), seed, count) {
		for _, k := range round {
			for j, other := range execs {
				if j != k {
					other.ln.rs.iteration(ctx, usage.PhaseIdle, other.offset(phase)+i)
				}
			}
			thaw, err := freezeOthers(ctx, s, execs, k)
			if err == nil {
				err = execs[k].iteration(ctx, phase, i, count)
				err = errors.Join(err, thaw())
			}
			for j, other := range execs {
				if j != k {
					other.ln.rs.iterationEnd(ctx)
				}
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// freezeOthers pauses every actor (nodes and chain) of the networks but
// execs[k] when the scenario asks (compare.freeze_idle); thaw resumes them.
// The actors are paused, and thawed, all at once: one by one, the six
// pauses and resumes of an AlicePaysBob twin cost 0.6 s at every
// iteration of an interleaved comparison on compose.
func freezeOthers(ctx context.Context, s scenario.Scenario, execs []*caseExec, k int) (thaw func() error, err error) {
	var frozen []func() error
	thaw = func() error { return all(frozen) }
	if !s.Freezes() {
		return thaw, nil
	}
	var pauses []func() error
	var mu sync.Mutex
	for j, other := range execs {
		if j == k {
			continue
		}
		inj, ok := other.ln.be.(backend.FaultInjector)
		if !ok {
			return thaw, fmt.Errorf("compare.freeze_idle: this backend cannot pause a network's processes")
		}
		names := []string{chainActor}
		for _, n := range other.ln.plan.topo.Nodes {
			names = append(names, n.Name)
		}
		for _, name := range names {
			pauses = append(pauses, func() error {
				if err := inj.Pause(ctx, name); err != nil {
					return fmt.Errorf("freezing %s of the waiting network: %w", name, err)
				}
				mu.Lock()
				frozen = append(frozen, func() error { return inj.Resume(context.Background(), name) })
				mu.Unlock()
				return nil
			})
		}
	}
	if err := all(pauses); err != nil {
		return thaw, errors.Join(err, thaw())
	}
	return thaw, nil
}

// all runs fs at once and joins their errors.
func all(fs []func() error) error {
	errs := make([]error, len(fs))
	var wg sync.WaitGroup
	for i, f := range fs {
		wg.Go(func() { errs[i] = f() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// chainActor is the chain's actor name on every backend.
const chainActor = "btcd"

// iterationRounds is the order of the networks (by index) in each of n
// measured rounds: launchRounds' pattern over the networks.
func iterationRounds(networks int, order string, seed uint64, n int) [][]int {
	idx := make([]int, networks)
	for i := range idx {
		idx[i] = i
	}
	return launchRounds(idx, order, seed, 0, n)
}

// iterationSeed derives a case's interleaving seed from the run's seed, so
// every pair and case gets its own order and a rerun the same ones.
func iterationSeed(seed uint64, pair, caseKey string, index int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s/%s/%d", seed, pair, caseKey, index)
	return h.Sum64()
}

// duet runs every network's i-th iteration at the same moment and waits
// for all before the next: the networks share the machine's drift
// iteration by iteration. Warm-ups follow the same schedule.
func duet(ctx context.Context, job scenario.Job, execs []*caseExec) error {
	if err := together(ctx, execs, result.Warmup, job.WarmupCount); err != nil {
		return err
	}
	return together(ctx, execs, result.Measure, job.IterationCount)
}

// together runs count iterations of phase on every network at the same
// moment, the next when all have ended.
func together(ctx context.Context, execs []*caseExec, phase string, count int) error {
	for i := 0; i < count; i++ {
		g, gctx := errgroup.WithContext(ctx)
		for _, e := range execs {
			g.Go(func() error { return e.iteration(gctx, phase, i, count) })
		}
		if err := g.Wait(); err != nil {
			return err
		}
	}
	return nil
}
