package local

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/backend/driver"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/sampler"
	"github.com/lnbench/lnbench/topology"
)

func init() { driver.Register(Driver{}) }

// Driver registers the local-process backend: every machine can run it;
// it pauses, restarts and kills processes but shapes no links and limits
// no node.
type Driver struct{}

func (Driver) Name() string { return "local" }
func (Driver) Caps() driver.Caps {
	return driver.Caps{Faults: true, CLN: true, Postgres: true, Snapshots: true, Auto: 2, Overhead: overhead}
}
func (Driver) Probe(context.Context) error { return nil }
func (Driver) Fix() string                 { return "" }

func (Driver) Open(_ context.Context, o driver.Options) (driver.Site, error) {
	return &site{log: o.Log}, nil
}

type site struct {
	builds driver.Builds
	log    io.Writer
	warned sync.Once
}

func (s *site) Stage(_ context.Context, st driver.Stage) error {
	s.builds = st.Builds
	return nil
}

func (s *site) Network(_ context.Context, n driver.Network) (backend.Backend, error) {
	if exe, err := os.Executable(); err == nil && s.log != nil {
		if w := driver.ShimWarning(exe, n.Topology); w != "" {
			s.warned.Do(func() { fmt.Fprintln(s.log, w) })
		}
	}
	b, err := New(Options{RunID: n.RunID, WorkDir: n.WorkDir, BinDirs: s.builds.BinDirs,
		ChainBinDir:  s.builds.BinDirs[s.builds.Chain],
		StartTimeout: n.StartTimeout, Pprof: n.Profiling, CPUs: n.CPUs})
	if err != nil {
		return nil, err // not a nil *Backend in the interface
	}
	return b, nil
}

// Sampler profiles in this process: the nodes' endpoints are on 127.0.0.1.
func (s *site) Sampler(_ context.Context, _ backend.Backend, cfg sampler.Config) (sampler.Controller, error) {
	return sampler.Start(cfg)
}

func (s *site) Describe(_ context.Context, w io.Writer, _ backend.Backend, _ *network.Network, topo topology.Topology, _ string) {
	fmt.Fprintf(w, "%s runs as local processes; they end with the command\n", topo)
}

// overhead: a restored AlicePaysBob in 2.4 s (quiet); close 0.25 s and
// 25 ms between iterations, medians of a 2-launch comparison
// (docs/measured.md).
var overhead = backend.Overhead{Restore: 2400 * time.Millisecond, Close: 250 * time.Millisecond, BetweenIterations: 25 * time.Millisecond}
