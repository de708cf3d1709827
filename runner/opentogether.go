package runner

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/usage"
)

// openTogether opens a launch round's networks at once (setup is not
// measured, and one by one a default comparison on compose spent 31 s
// between rounds bringing up two AlicePaysBob networks and removing two).
// Each network records into a manifest of its own while it opens, merged
// into rec in the round's order afterwards, so the record reads as if
// they had opened one by one. The first failure cancels the others' setup
// and is the error returned; the networks that did open are returned too,
// for the caller to close. Their watches live under a context that only
// a failure here ends: release, once they are closed, frees it. The disks
// are probed first, one at a time: a probe beside another network's setup
// would read a lower ceiling.
func openTogether(ctx context.Context, opts Options, run Run, pair []networkPlan, rec *record.Manifest, configs map[string]backend.NodeConfig) (live []*liveNetwork, release func(), err error) {
	for _, p := range pair {
		storage, workDir := networkStorage(opts, run, p)
		probeStorage(ctx, opts, storage, workDir, rec)
	}
	octx, cancel := context.WithCancelCause(ctx)
	opened := make([]*liveNetwork, len(pair))
	own := make([]*record.Manifest, len(pair))
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for k, p := range pair {
		own[k] = &record.Manifest{Started: rec.Started, DiskProbes: slices.Clone(rec.DiskProbes)}
		wg.Go(func() {
			ln, err := openNetwork(octx, opts, run, p, nil, own[k], configs)
			opened[k] = ln
			if err != nil {
				once.Do(func() { first = err; cancel(err) })
				return
			}
			// A death in a network already up ends the others' setup,
			// which their watches then name.
			context.AfterFunc(ln.watch.ctx, func() { cancel(context.Cause(ln.watch.ctx)) })
		})
	}
	wg.Wait()
	for k, ln := range opened {
		mergeRecord(rec, own[k])
		if ln != nil {
			ln.notes.Store(rec)
			live = append(live, ln)
		}
	}
	return live, func() { cancel(errors.New("round over")) }, first
}

// closeTogether closes a round's networks at once, each recording into a
// manifest of its own, merged into rec in the round's order.
func closeTogether(opts Options, run Run, live []*liveNetwork, rec *record.Manifest) error {
	own := make([]*record.Manifest, len(live))
	closes := make([]func() error, len(live))
	for k, ln := range live {
		own[k] = &record.Manifest{}
		closes[k] = func() error { return ln.close(opts, run, own[k]) }
	}
	err := all(closes)
	for k := range live {
		mergeRecord(rec, own[k])
	}
	return err
}

// mergeRecord adds what a network recorded while it opened (src) to the
// run's manifest.
func mergeRecord(dst, src *record.Manifest) {
	dst.Setup = append(dst.Setup, src.Setup...)
	dst.Teardown = append(dst.Teardown, src.Teardown...)
	dst.Costs = append(dst.Costs, src.Costs...)
	dst.Forwards = append(dst.Forwards, src.Forwards...)
	dst.Placement = append(dst.Placement, src.Placement...)
	dst.Snapshots = append(dst.Snapshots, src.Snapshots...)
	for _, w := range src.Warnings {
		addNote(dst, w)
	}
	for _, p := range src.DiskProbes {
		if !slices.ContainsFunc(dst.DiskProbes, func(q usage.DiskProbe) bool { return q.Storage == p.Storage }) {
			dst.DiskProbes = append(dst.DiskProbes, p)
		}
	}
}

// anyDone is a context ended, with its cause, as soon as any of ctxs is:
// a death in any network of a round ends the round's case.
func anyDone(parent context.Context, ctxs ...context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	stops := make([]func() bool, len(ctxs))
	for i, c := range ctxs {
		stops[i] = context.AfterFunc(c, func() { cancel(context.Cause(c)) })
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel(errors.New("case over"))
	}
}
