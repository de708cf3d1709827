package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/lnbench/lnbench/internal/progress"
	"github.com/lnbench/lnbench/load"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/scenario"
)

// caseExec runs one case's iterations on one live network, one iteration
// per call, so that a design can schedule the iterations of several
// networks: one after another, alternating, or at the same moment.
type caseExec struct {
	opts Options
	ln   *liveNetwork
	cr   caseRun
	cf   *caseFaults
	t    load.Target
	sink func(result.Record) error
	// records are the case's records when a sweep judges it (observeSweep),
	// kept here rather than read back from payments.jsonl.
	records []result.Record
	batch   func(context.Context, load.Batch, *load.Prepared) (load.BatchResult, error)
	// tag names the network in progress lines when several run together.
	tag string
}

func newCaseExec(opts Options, ln *liveNetwork, cr caseRun, w *result.Writer, cf *caseFaults) *caseExec {
	net := ln.net
	wl := cr.c.Workload
	var payers []nodeRef
	for _, name := range net.Topology.Payers {
		payers = append(payers, net.Nodes[name])
	}
	t := load.Target{Payers: payers, Payee: net.Nodes[net.Topology.Payee], PayeePubKey: net.PubKeys[net.Topology.Payee],
		Mode: wl.Mode, AmountSat: wl.AmountSat, Timeout: 60 * time.Second}
	for _, p := range net.Topology.Pairs {
		t.Pairs = append(t.Pairs, load.Pair{Payer: net.Nodes[p.Payer], Payee: net.Nodes[p.Payee], PayeePubKey: net.PubKeys[p.Payee]})
	}
	e := &caseExec{opts: opts, ln: ln, cr: cr, cf: cf, t: t}
	keep := opts.Scenario.Sweep != nil
	e.sink = func(r result.Record) error {
		err := w.Write(r)
		if keep {
			e.records = append(e.records, r)
		}
		if cf != nil && r.Phase == result.Measure {
			cf.payment()
		}
		return err
	}
	rate := wl.PerSecond(len(net.Topology.Routes()))
	e.batch = func(ctx context.Context, b load.Batch, pre *load.Prepared) (res load.BatchResult, err error) {
		// payments.jsonl is buffered (Execute): flushed after every batch.
		defer func() {
			if ferr := w.Flush(); err == nil {
				err = ferr
			}
		}()
		if wl.OpenLoop() {
			return load.RunOpen(ctx, e.t, load.OpenBatch{Batch: b, Pacer: load.ConstantRate{PerSecond: rate}}, pre, e.sink)
		}
		return load.RunBatch(ctx, e.t, b, pre, e.sink)
	}
	return e
}

// offset is the stream's iteration number of the case's first iteration
// of phase in its launch: launches number their iterations on.
func (e *caseExec) offset(phase string) int {
	job := e.opts.Scenario.Job
	switch {
	case phase == result.Warmup:
		return e.cr.launch * job.WarmupCount
	case job.Timed():
		return 0
	case e.opts.Scenario.Design() == scenario.DesignDuetSolo:
		solo := scenario.SoloIterations(job.IterationCount)
		if phase == result.Duet {
			return e.cr.launch * (job.IterationCount - solo)
		}
		return e.cr.launch * solo
	}
	return e.cr.launch * job.IterationCount
}

// iteration runs the case's i-th iteration of phase (count of them, 0
// when unknown: a timed job) with all its invocations, sampling its
// resources and profile.
func (e *caseExec) iteration(ctx context.Context, phase string, i, count int) error {
	s := e.opts.Scenario
	c := e.cr.c
	index := e.offset(phase) + i
	var took time.Duration
	var from, to time.Time
	ok, failed := 0, 0
	e.ln.watch.at(casePhase(c.ID(), phase, i))
	e.ln.rs.iteration(ctx, phase, index)
	e.ln.cw.iteration(ctx, c, phase, index)
	if e.cf != nil && phase == result.Measure {
		if i == 0 {
			e.cf.begin(ctx)
		}
		e.cf.iteration(i)
	}
	for inv := 0; inv < s.Job.InvocationCount; inv++ {
		pre, err := load.Prepare(ctx, e.t, c.Workload.TotalPayments)
		if err != nil {
			return err
		}
		res, err := e.batch(ctx, load.Batch{Case: c.ID(), Phase: phase, Iteration: index, Concurrency: c.Workload.Concurrency, Total: c.Workload.TotalPayments}, pre)
		if err != nil {
			return err
		}
		took += res.Duration()
		if from.IsZero() {
			from = res.Start
		}
		to = res.End
		ok += res.Succeeded
		failed += res.Failed
	}
	e.ln.cw.iterationEnd(ctx)
	e.ln.rs.iterationEnd(ctx)
	e.opts.Progress.Iteration(progress.Iteration{Phase: phase + e.tag, Index: i + 1, Of: count, OK: ok, Failed: failed,
		SecPerOp: took.Seconds() / float64(s.Job.InvocationCount), PaymentsPerSec: float64(ok) / took.Seconds()})
	if phase == result.Measure {
		label := fmt.Sprintf("%s/%d", c.ID(), index)
		if err := e.ln.prof.Iteration(ctx, label, from, to); err != nil {
			fmt.Fprintf(e.opts.Log, "profiling %s: %v\n", label, err)
		}
	}
	return nil
}

// runAll runs the case's warm-ups, then its measured iterations: a count,
// or, for a timed job, back to back until the duration has passed.
func (e *caseExec) runAll(ctx context.Context) error {
	job := e.opts.Scenario.Job
	for i := 0; i < job.WarmupCount; i++ {
		if err := e.iteration(ctx, result.Warmup, i, job.WarmupCount); err != nil {
			return err
		}
	}
	if !job.Timed() {
		for i := 0; i < job.IterationCount; i++ {
			if err := e.iteration(ctx, result.Measure, i, job.IterationCount); err != nil {
				return err
			}
		}
		return nil
	}
	start := time.Now()
	for i := 0; i == 0 || time.Since(start) < job.Duration; i++ {
		if err := e.iteration(ctx, result.Measure, i, 0); err != nil {
			return err
		}
	}
	return nil
}
