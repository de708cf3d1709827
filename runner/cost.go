package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/usage"
	"github.com/lnbench/lnbench/usage/collect"
	"github.com/lnbench/lnbench/usage/costcurve"
)

// Snapshotter samples every actor of a network once (RSS, peak, CPU).
type Snapshotter func(ctx context.Context, be backend.Backend) ([]usage.Sample, error)

// snapshotTimeout bounds the snapshot at ready: reading a hundred actors'
// counters takes well under a second; a stuck engine must not hold the run.
const snapshotTimeout = 30 * time.Second

// measureCost is what the network cost this machine at ready. Every actor
// started during setup, so its cumulative CPU time is its setup CPU.
func measureCost(ctx context.Context, snap Snapshotter, be backend.Backend, p networkPlan, memBefore int64, harnessCPU float64) (record.NetworkCost, error) {
	nc := record.NetworkCost{Network: p.name, AtReady: costcurve.AtReady{Nodes: len(p.topo.Nodes), MemAvailableBytes: memBefore}, HarnessCPUSeconds: harnessCPU}
	for _, c := range p.cases {
		nc.Cases = append(nc.Cases, c.c.ID())
	}
	if snap == nil {
		return nc, nil // nothing can read this backend's actors: times only
	}
	sctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	// Actors that could not be read are left out and named in err; the
	// others still count.
	samples, err := snap(sctx, be)
	nc = costOf(nc, samples)
	if err != nil {
		return nc, fmt.Errorf("cost at ready: %v", err)
	}
	return nc, nil
}

// snapshotActors reads every actor the backend lists with package
// usage/collect (cgroups for containers, /proc for local processes).
// Backends that list none give no figures: the curve then has times only.
func snapshotActors(ctx context.Context, be backend.Backend) ([]usage.Sample, error) {
	al, ok := be.(backend.ActorLister)
	if !ok {
		return nil, nil
	}
	actors, err := al.Actors(ctx)
	if err != nil {
		return nil, err
	}
	return collect.Snapshot(ctx, actors)
}

// costOf sums the samples of the network's nodes and chain into nc; the
// sampler sidecar (profiling) and other roles are not the network's cost;
// a database server the nodes keep their state in (db=postgres) is.
func costOf(nc record.NetworkCost, samples []usage.Sample) record.NetworkCost {
	nc.CPUSeconds = nc.HarnessCPUSeconds
	for _, s := range samples {
		if !usage.NetworkRole(s.Role) {
			continue
		}
		nc.RSSBytes += s.RSSBytes
		nc.PeakRSSBytes += max(s.RSSPeakBytes, s.RSSBytes)
		nc.CPUSeconds += s.CPUSeconds()
		if s.Role == usage.RoleNode {
			nc.NodeRSSBytes += s.RSSBytes
		}
		if nc.Source == "" {
			nc.Source = s.Source
		}
	}
	return nc
}
