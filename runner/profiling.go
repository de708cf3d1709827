package runner

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/sampler"
)

// SamplerFactory starts the profiler of one network.
type SamplerFactory func(spec NetworkSpec, net *network.Network, be backend.Backend, cfg sampler.Config) (sampler.Controller, error)

type noSampler struct{}

func (noSampler) Iteration(context.Context, string, time.Time, time.Time) error { return nil }
func (noSampler) Stop()                                                         {}

// startSampler configures sampling from the scenario and starts it, in
// process from each node's pprof endpoint unless the run supplies a factory.
func startSampler(opts Options, spec NetworkSpec, net *network.Network, be backend.Backend, origin time.Time) (sampler.Controller, error) {
	sm := opts.Scenario.Sampling
	every, window, slice := sm.Durations()
	cfg := sampler.Config{Mode: sm.Mode, Every: every, Window: window, Slice: slice, Stagger: sm.Stagger,
		Store: &sampler.Store{Out: spec.ArtifactsDir, Origin: origin}, Log: opts.Log}
	names := make([]string, 0, len(net.Endpoints))
	for n := range net.Endpoints {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ep := net.Endpoints[n]
		if ep.PprofHost == "" {
			return nil, fmt.Errorf("profiling: node %s has no pprof endpoint (backend %s)", n, be.Name())
		}
		cfg.Targets = append(cfg.Targets, sampler.Target{Actor: n, URL: "http://" + ep.PprofHost})
	}
	if opts.NewSampler != nil {
		return opts.NewSampler(spec, net, be, cfg)
	}
	return sampler.Start(cfg)
}
