package cli

import (
	"context"
	"debug/elf"
	"fmt"
	"os"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/backend/compose"
	"github.com/lnbench/lnbench/backend/swarm"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/runner"
	"github.com/lnbench/lnbench/sampler"
	"github.com/lnbench/lnbench/scenario"
)

// staticSelf returns this executable's path if it is statically linked, so
// it can run inside the containers (the sampler sidecar, sample-loop.sh).
func staticSelf() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	f, err := elf.Open(exe)
	if err != nil {
		return "", fmt.Errorf("%s is not an ELF binary: %v", exe, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return "", fmt.Errorf("%s is dynamically linked; build it with CGO_ENABLED=0 (./run.sh does) so it runs in the containers", exe)
		}
	}
	return exe, nil
}

// samplerArgs renders the scenario's sampling settings as sidecar flags.
func samplerArgs(sm scenario.Sampling, origin time.Time) []string {
	args := []string{"--mode", sm.Mode, "--every", sm.Every, "--window", sm.Window, "--slice", sm.Slice,
		"--origin", origin.UTC().Format(time.RFC3339Nano)}
	if sm.Stagger {
		args = append(args, "--stagger")
	}
	return args
}

// newSampler starts the profiler of a network: the sidecar container for
// compose (pprof is reachable only inside the compose network), one per
// engine for swarm, in process otherwise.
func newSampler(ctx context.Context) runner.SamplerFactory {
	return func(spec runner.NetworkSpec, net *network.Network, be backend.Backend, cfg sampler.Config) (sampler.Controller, error) {
		if sb, ok := be.(*swarm.Backend); ok {
			return startSwarmSampler(ctx, sb, cfg.Log)
		}
		cb, ok := be.(*compose.Backend)
		if !ok {
			return sampler.Start(cfg)
		}
		sctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		url, err := cb.StartSampler(sctx)
		if err != nil {
			return nil, err
		}
		r := sampler.Remote{URL: url}
		if err := r.WaitHealthy(sctx); err != nil {
			return nil, err
		}
		return r, nil
	}
}
