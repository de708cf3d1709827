package runner

import (
	"context"

	"github.com/lnbench/lnbench/record/result"
)

// runNetwork brings one network up, runs its cases one after another and
// tears it down: the sequential design.
func (e *execution) runNetwork(ctx context.Context, p networkPlan) (err error) {
	opts, run, w, fw, rec, sw, configs := e.opts, e.run, e.w, e.fw, e.rec, e.sw, e.configs
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
