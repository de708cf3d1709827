package runner

import (
	"context"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/result"
	"github.com/lnbench/lnbench/runrecord"
	"github.com/lnbench/lnbench/sweep"
)

// runNetwork brings one network up, runs its cases one after another and
// tears it down: the sequential design.
func runNetwork(ctx context.Context, opts Options, run Run, p networkPlan, w *result.Writer, fw *faults.Writer, rec *runrecord.Manifest,
	sw *sweep.Sweep, configs map[string]backend.NodeConfig) (err error) {
	s := opts.Scenario
	ln, err := openNetwork(ctx, opts, run, p, fw, rec, configs)
	if err != nil {
		return err
	}
	defer func() { err = withTeardown(err, ln.close(opts, run, rec)) }()
	for _, c := range p.cases {
		if skipSwept(sw, rec, c) {
			continue
		}
		opts.Progress.Case(caseIndex(rec, c), countCases(s), c.c.ID())
		var cf *caseFaults
		if ln.fn != nil {
			if cf, err = ln.fn.forCase(c.c.ID()); err != nil {
				return err
			}
		}
		caseCtx := ln.watch.ctx
		ln.rs.startCase(caseCtx, c.c)
		restoreProcs := limitProcs()
		recs, err := runCase(caseCtx, opts, ln, c, w, cf)
		restoreProcs()
		ln.rs.endCase(caseCtx)
		if err := ln.watch.explain(err); err != nil {
			return err
		}
		observeSweep(sw, c.c, recs, s)
	}
	return nil
}

// runCase runs the case's iterations; records are what the sweep judges
// (none when the scenario has no sweep).
func runCase(ctx context.Context, opts Options, ln *liveNetwork, cr caseRun, w *result.Writer, cf *caseFaults) (records []result.Record, err error) {
	if cf != nil {
		defer cf.finish()
	}
	e := newCaseExec(opts, ln, cr, w, cf)
	err = e.runAll(ctx)
	return e.records, err
}
