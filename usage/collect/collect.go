// Package collect reads one actor's cumulative resource counters into a
// usage.Sample: from the container's cgroup (v1 or v2 layout) for compose
// actors, the engine's stats API when the cgroup cannot be read, and /proc
// for local processes. Nothing here keeps state: each call reads the
// kernel's counters afresh, so a sample lost costs nothing but resolution.
package collect

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/usage"
)

// Collector reads counters from the given roots (the host's by default;
// tests point them at fixtures).
type Collector struct {
	CgroupRoot string // default /sys/fs/cgroup
	ProcRoot   string // default /proc
	// DockerStats is the fallback for containers whose cgroup is not
	// readable: the stats of a container on the engine at host (an
	// actor's Engine, "" for the default one); nil means the engine API
	// (see DockerStats).
	DockerStats func(ctx context.Context, host, containerID string) (usage.Sample, error)
	// HTTP reaches pprof endpoints; nil means a client with a 2 s timeout.
	HTTP *http.Client
	// Now stamps samples; nil means time.Now.
	Now func() time.Time
}

// Default reads the host's counters.
var Default = &Collector{}

// Snapshot samples every actor with the default collector.
func Snapshot(ctx context.Context, actors []backend.Actor) ([]usage.Sample, error) {
	return Default.Snapshot(ctx, actors)
}

// Snapshot samples every actor concurrently (pprof requests may take a
// while); the samples come back in the actors' order. Actors that could not
// be read are left out and named in the error.
func (c *Collector) Snapshot(ctx context.Context, actors []backend.Actor) ([]usage.Sample, error) {
	out := make([]usage.Sample, len(actors))
	errs := make([]error, len(actors))
	var wg sync.WaitGroup
	for i, a := range actors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = c.Sample(ctx, a)
		}()
	}
	wg.Wait()
	var kept []usage.Sample
	for i := range out {
		if errs[i] == nil {
			kept = append(kept, out[i])
		}
	}
	return kept, errors.Join(errs...)
}

// Sample reads one actor: its cgroup when it has one (falling back to the
// engine's stats API), else its process tree under /proc; network bytes
// from its (init) process's network namespace; Go runtime figures from its
// pprof endpoint when it has one.
func (c *Collector) Sample(ctx context.Context, a backend.Actor) (usage.Sample, error) {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	s := usage.Sample{Time: now().UTC(), Actor: a.Name, Role: a.Role}
	var err error
	switch {
	case a.CgroupPath != "" || a.ContainerID != "":
		err = c.readCgroup(a, &s)
		if err != nil && a.ContainerID != "" {
			stats := c.DockerStats
			if stats == nil {
				stats = DockerStats
			}
			var ds usage.Sample
			if ds, err = stats(ctx, a.Engine, a.ContainerID); err == nil {
				ds.Time, ds.Actor, ds.Role = s.Time, s.Actor, s.Role
				s = ds
			}
		}
	case len(a.PIDs) > 0:
		err = c.readProcs(a.PIDs, &s)
	case a.PID > 0:
		err = c.readProcTree(a.PID, a.Role != usage.RoleHarness, &s)
	default:
		err = errors.New("neither a cgroup, a container nor a process to read")
	}
	if err != nil {
		return s, fmt.Errorf("%s: %v", a.Name, err)
	}
	if s.IOSource == "" {
		// The cgroup (or engine) listed no device: its counters may read
		// zero whatever is written. Count the actor's processes instead.
		c.readProcIO(c.Processes(a), &s)
	}
	if a.PID > 0 && s.NetRxBytes == 0 && s.NetTxBytes == 0 {
		// Best effort: a process that just exited has no namespace left.
		s.NetRxBytes, s.NetTxBytes, _ = readNetDev(filepath.Join(c.procRoot(), fmt.Sprint(a.PID), "net", "dev"))
	}
	if a.PprofHost != "" {
		s.Goroutines, s.HeapBytes = c.goRuntime(ctx, a.PprofHost)
	}
	return s, nil
}

func (c *Collector) cgroupRoot() string {
	if c.CgroupRoot != "" {
		return c.CgroupRoot
	}
	return "/sys/fs/cgroup"
}

func (c *Collector) procRoot() string {
	if c.ProcRoot != "" {
		return c.ProcRoot
	}
	return "/proc"
}

// CgroupV2 tells whether the hierarchy at root is the unified (v2) one.
func CgroupV2(root string) bool {
	_, err := os.Stat(filepath.Join(root, "cgroup.controllers"))
	return err == nil
}
