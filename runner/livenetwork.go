package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/sampler"
	"github.com/lnbench/lnbench/usage/footprint"
	"github.com/lnbench/lnbench/usage/guard"
)

// liveNetwork is one network up and ready to measure: its backend, its
// nodes, and the samplers that watch it. A sequential run holds one at a
// time; the interleaved and duet designs hold a launch round's networks
// together.
type liveNetwork struct {
	plan    networkPlan
	spec    NetworkSpec
	storage string
	be      backend.Backend
	net     *network.Network
	prof    sampler.Controller
	rs      *resourceSampler
	cw      *channelWatch // nil: no node reads its channels
	fn      *faultNet
	// watch ends any phase of the network (setup included) when an
	// actor dies; every phase runs under watch.ctx.
	watch *watcher
	// notes is the manifest the samplers' notes go to: the run's, or a
	// network's own while it opens beside others (openTogether).
	notes atomic.Pointer[record.Manifest]
}

// openNetwork starts p's backend and network, measures its cost at ready
// and starts its samplers. On an error what was started is torn down. With
// snapshots on, the network is restored; a snapshot that does not restore
// is set aside (one line) and the network built instead.
func openNetwork(ctx context.Context, opts Options, run Run, p networkPlan, fw *faults.Writer, rec *record.Manifest,
	configs map[string]backend.NodeConfig) (*liveNetwork, error) {
	ln, err := openNetworkFrom(ctx, opts, run, p, fw, rec, configs, opts.Snapshots.restores(p))
	var re *restoreError
	if errors.As(err, &re) && ctx.Err() == nil {
		setAside(opts, rec, re)
		keepFailedRestore(run, rec, p.name)
		return openNetworkFrom(ctx, opts, run, p, fw, rec, configs, false)
	}
	return ln, err
}

// networkStorage is the storage kind p's nodes keep their data on, and
// p's work folder there.
func networkStorage(opts Options, run Run, p networkPlan) (storage, workDir string) {
	storage = p.cases[0].c.Storage()
	return storage, filepath.Join(workRoot(opts, storage), run.ID, sanitize(p.name))
}

// openNetworkFrom is openNetwork, restoring from a snapshot or building.
func openNetworkFrom(ctx context.Context, opts Options, run Run, p networkPlan, fw *faults.Writer, rec *record.Manifest,
	configs map[string]backend.NodeConfig, fromSnapshot bool) (ln *liveNetwork, err error) {
	s := opts.Scenario
	storage, workDir := networkStorage(opts, run, p)
	probeStorage(ctx, opts, storage, workDir, rec)
	spec := NetworkSpec{RunID: run.ID, Name: p.name, WorkDir: workDir, ArtifactsDir: run.Dir, Topology: p.topo, Profiling: s.Sampling.On(), Origin: rec.Started, NodeConfigs: configs, CPUs: p.cpus}
	be, err := opts.NewBackend(spec)
	if err != nil {
		return nil, err
	}
	ln = &liveNetwork{plan: p, spec: spec, storage: storage, be: be, prof: noSampler{}}
	ln.notes.Store(rec)
	ln.watch = watchNetwork(ctx, p.name, be, opts.watchTicks, opts.Log)
	parent := ctx
	ctx = ln.watch.ctx
	var restoring string // the snapshot's key while its network comes up
	defer func() {
		if err != nil {
			err = ln.watch.explain(err)
			if restoring != "" && parent.Err() == nil {
				err = &restoreError{restoring, err}
			}
			err = withTeardown(err, ln.close(opts, run, rec))
			ln = nil
		}
	}()
	memBefore, _ := footprint.MemAvailable() // 0 when unknown: the cost curve says so
	cpuBefore := cpuSeconds()
	upOpts := network.Options{Drivers: opts.Drivers, StartChain: opts.StartChain,
		DBBackend: s.Node.DBBackend, NodeArgs: s.Node.Flags, Configs: configs, Log: opts.Log, NodeBytes: guard.NodeBytes(s), StartsPerCore: guard.StartsPerCore(s),
		OnPhase: func(name string) { ln.watch.at("setup " + name) }}
	if fromSnapshot {
		ln.net, err = restoreNetwork(ctx, opts, run, p, spec, be, upOpts, configs, rec, &restoring)
	} else {
		ln.net, err = network.Up(ctx, be, p.topo, upOpts)
	}
	if pl, ok := be.(backend.Placer); ok {
		rec.Placement = append(rec.Placement, placements(p.name, pl.Placement())...)
	}
	if ln.net != nil {
		for _, ph := range ln.net.Phases {
			rec.Setup = append(rec.Setup, record.Setup{Network: p.name, Phase: ph.Name, Seconds: ph.Seconds})
		}
	}
	if err != nil {
		return ln, err
	}
	restoring = ""
	ln.watch.at("after setup")
	snap := opts.Snapshot
	if snap == nil {
		snap = snapshotActors
	}
	cost, cerr := measureCost(ctx, snap, be, p, memBefore, cpuSeconds()-cpuBefore)
	if cerr != nil {
		rec.Warnings = append(rec.Warnings, p.name+": "+cerr.Error())
	}
	rec.Costs = append(rec.Costs, cost)
	if s.Sampling.On() {
		if ln.prof, err = startSampler(opts, spec, ln.net, be, rec.Started); err != nil {
			ln.prof = noSampler{}
			return ln, err
		}
	}
	if ln.rs, err = newResourceSampler(filepath.Join(run.Dir, record.ResourcesFile), p.name, be, opts.Log, func(line string) { addNote(ln.notes.Load(), line) }); err != nil {
		return ln, err
	}
	if ln.cw, err = newChannelWatch(filepath.Join(run.Dir, record.ChannelsFile), p.name, ln.net.ChannelReaders(), ln.net.PubKeys, opts.Log); err != nil {
		return ln, err
	}
	if fw != nil {
		if ln.fn, err = newFaultNet(be, ln.net, fw, p.name, s.Faults, func(f string, a ...any) { fmt.Fprintf(opts.Log, f+"\n", a...) }); err != nil {
			return ln, err
		}
		ln.fn.restarted = ln.rs.follow
		ln.watch.expectFaults(ln.fn.expect)
		ln.fn.prepare(ctx)
	}
	return ln, nil
}

// close stops the samplers, records the nodes' configs and forwards,
// collects the logs and tears the network down. It runs even after Ctrl-C,
// so it works on fresh contexts: the logs get at most teardownTimeout, and
// the teardown its own teardownTimeout, so a lost engine cannot starve the
// removal. A teardown that leaves something is recorded in the manifest's
// warnings and returned: the run's error carries it, and it exits non-zero.
func (ln *liveNetwork) close(opts Options, run Run, rec *record.Manifest) (err error) {
	phase := phaseClock(rec, ln.plan.name)
	ln.watch.stop() // teardown stops every actor: no death to report
	if ln.rs != nil {
		ln.rs.stop()
	}
	ln.cw.close()
	ln.prof.Stop()
	phase("samplers")
	lctx, cancel := context.WithTimeout(context.Background(), teardownTimeout)
	defer cancel()
	dir := filepath.Join(run.Dir, "nodes", sanitize(ln.plan.name))
	if ln.net != nil {
		writeNodeConfigs(dir, ln.spec.WorkDir, ln.net)
		rec.Forwards = append(rec.Forwards, forwards(lctx, ln.plan.name, ln.net)...)
		ln.net.Close()
	}
	if lerr := ln.be.CollectLogs(lctx, dir); lerr != nil {
		fmt.Fprintf(opts.Log, "collecting logs: %v\n", lerr)
	}
	phase("logs")
	tctx, tcancel := context.WithTimeout(context.Background(), teardownTimeout)
	defer tcancel()
	if err = ln.be.Teardown(tctx); err != nil {
		err = &teardownError{network: ln.plan.name, err: err}
		rec.Warnings = append(rec.Warnings, err.Error())
	}
	phase("teardown")
	os.RemoveAll(ln.spec.WorkDir) // holds keys and macaroons: never left behind
	return err
}

// phaseClock records in rec.Teardown, at each call, the wall time since
// the previous one (or since phaseClock) under the phase's name.
func phaseClock(rec *record.Manifest, network string) func(phase string) {
	last := time.Now()
	return func(phase string) {
		now := time.Now()
		rec.Teardown = append(rec.Teardown, record.Setup{Network: network, Phase: phase, Seconds: now.Sub(last).Seconds()})
		last = now
	}
}

// teardownTimeout bounds a network's log collection, and its teardown.
const teardownTimeout = 2 * time.Minute

// teardownError is a network's teardown that left something behind.
type teardownError struct {
	network string
	err     error
}

func (e *teardownError) Error() string { return "tearing down " + e.network + ": " + e.err.Error() }
func (e *teardownError) Unwrap() error { return e.err }

// withTeardown adds a teardown's failure to the error that ended the
// network (or is the error when nothing else failed): neither hides the
// other.
func withTeardown(err, terr error) error {
	switch {
	case terr == nil:
		return err
	case err == nil:
		return terr
	}
	return errors.Join(err, terr)
}
