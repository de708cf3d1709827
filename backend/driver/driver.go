// Package driver is the registry of backends: each backend package
// registers a Driver (name, probe, capabilities, how it readies a run and
// starts a network), and the command layer finds one by name and asks its
// capabilities, never its name or its concrete type. backend/all imports
// every backend so that they register.
package driver

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/chain/bitcoincli"
	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/sampler"
	"github.com/lnbench/lnbench/topology"
)

// Caps is what a backend can do; refusals follow these, not names.
type Caps struct {
	// Images: nodes run in containers of the node images, built before the run.
	Images bool
	// Engines: the containers spread over several engines (the engines
	// file is checked before any build).
	Engines bool
	// Limits: per-node cpus/memory limits apply.
	Limits bool
	// Faults: pause, restart and kill (and so freezing a waiting network);
	// Impairments: delay, loss and rate on a node's links.
	Faults, Impairments bool
	// CLN: runs Core Lightning nodes.
	CLN bool
	// Postgres: starts a PostgreSQL server for db=postgres nodes.
	Postgres bool
	// Outlives: containers outlive the command (lnbench up).
	Outlives bool
	// Snapshots: the actors' data lives in folders of this host
	// (backend.DataFolders), so a network can be saved and restored.
	Snapshots bool
	// NoCPUSets says why a duet's networks cannot get CPU sets ("" if they can).
	NoCPUSets string
	// Auto is the backend's rank when --backend is auto: 1 is tried first;
	// 0 is never chosen unasked.
	Auto int
	// Overhead is what the plan's estimate counts around iterations.
	Overhead backend.Overhead
}

// Driver is one backend as the command layer sees it.
type Driver interface {
	Name() string
	Caps() Caps
	// Probe returns nil when this machine can run the backend; its error
	// says why not, Fix what to do then.
	Probe(ctx context.Context) error
	Fix() string
	// Open readies a run before anything is built (swarm checks its
	// engines): a refusal here leaves nothing built or started.
	Open(ctx context.Context, o Options) (Site, error)
}

// EnginesEnv names the engines file of a backend spread over several
// engines when --swarm-engines is not given.
const EnginesEnv = "LNBENCH_SWARM_ENGINES"

// EnginesHelp is the help of --swarm-engines.
const EnginesHelp = "swarm: the engines file, one \"hostname address DOCKER_HOST\" per line (default $" + EnginesEnv + ", else the one scripts/testbed-engines.sh writes)"

// Options are what a run tells its backend before the builds.
type Options struct {
	// EnginesFile is the swarm's engines file ("" its default).
	EnginesFile string
	// Tool is a static lnbench that runs in containers (the sampler
	// sidecar, sample-loop.sh, CLN's bitcoin-cli); "" with ToolErr saying why.
	Tool    string
	ToolErr error
	Log     io.Writer
	// Docker runs the docker command against one engine (host "" is the
	// local one); nil runs the docker CLI. Tests put a fake here.
	Docker func(ctx context.Context, host string, env []string, args ...string) (string, error)
}

// Builds is what the run's builds give its backend, by build key.
type Builds struct {
	BinDirs map[string]string
	// Images are the node images (backends with Caps.Images).
	Images map[string]string
	// Chain is the build key btcd comes from.
	Chain string
}

// Stage is what a backend readies once the builds exist.
type Stage struct {
	Builds Builds
	// Profiling: the run samples profiles (swarm's samplers need lnbench
	// in the images).
	Profiling bool
	// Faults are the scenario's; a backend checks it can apply them.
	Faults []faults.Spec
}

// Network is one network to start. NodeImages, ChainImage and Pprof of
// the embedded options are the backend's to fill.
type Network struct {
	composefile.NetworkOptions
	// CPUs pins the network's processes (nil: every CPU).
	CPUs []int
	// Profiling: the network is profiled (nodes open their profile endpoints).
	Profiling bool
}

// Site is a run's backend, readied: it starts the run's networks.
type Site interface {
	// Stage readies the builds where the nodes run (swarm copies the images
	// to its engines; compose checks its kernel can apply the faults).
	Stage(ctx context.Context, st Stage) error
	// Network makes the backend of one network; nothing starts yet.
	Network(ctx context.Context, n Network) (backend.Backend, error)
	// Sampler starts the profiler of a network be runs; cfg is the
	// in-process sampler's (local), the containers' own otherwise.
	Sampler(ctx context.Context, be backend.Backend, cfg sampler.Config) (sampler.Controller, error)
	// Describe tells how to reach each node of a network `lnbench up` left running.
	Describe(ctx context.Context, w io.Writer, be backend.Backend, net *network.Network, topo topology.Topology, runID string)
}

var (
	mu      sync.Mutex
	drivers = map[string]Driver{}
)

// Register adds a driver; a second one of the same name is a programming error.
func Register(d Driver) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := drivers[d.Name()]; dup {
		panic("backend driver registered twice: " + d.Name())
	}
	drivers[d.Name()] = d
}

// Lookup finds a registered driver by name.
func Lookup(name string) (Driver, bool) {
	mu.Lock()
	defer mu.Unlock()
	d, ok := drivers[name]
	return d, ok
}

// Names lists the drivers whose capabilities pass keep (all when nil),
// sorted.
func Names(keep func(Caps) bool) []string {
	mu.Lock()
	defer mu.Unlock()
	var names []string
	for n, d := range drivers {
		if keep == nil || keep(d.Caps()) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Either joins names for a message: "compose, local or swarm".
func Either(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	last := len(names) - 1
	return strings.Join(names[:last], ", ") + " or " + names[last]
}

// UseOneOf is the fix naming the backends that can do what keep asks:
// "use --backend compose or local".
func UseOneOf(keep func(Caps) bool) string {
	names := Names(keep)
	if len(names) == 0 {
		return "no backend can"
	}
	return "use --backend " + Either(names)
}

// Auto is the default backend: the registered drivers by their Caps.Auto
// rank, the first whose probe passes, with a note saying why an earlier
// one was passed over.
func Auto(ctx context.Context) (Driver, string, error) {
	ranked := AutoOrder()
	var why []string
	for _, d := range ranked {
		if err := d.Probe(ctx); err != nil {
			why = append(why, err.Error())
			continue
		}
		note := ""
		if len(why) > 0 {
			note = fmt.Sprintf("%s; using the %s backend", strings.Join(why, "; "), d.Name())
		}
		return d, note, nil
	}
	return nil, "", fmt.Errorf("no backend runs here: %s", strings.Join(why, "; "))
}

// AutoOrder lists the drivers --backend auto tries, in rank order.
func AutoOrder() []Driver {
	mu.Lock()
	defer mu.Unlock()
	var ranked []Driver
	for _, d := range drivers {
		if d.Caps().Auto > 0 {
			ranked = append(ranked, d)
		}
	}
	sort.Slice(ranked, func(i, j int) bool { return ranked[i].Caps().Auto < ranked[j].Caps().Auto })
	return ranked
}

// Objects are the labelled objects runs left on one Docker engine:
// lnbench ps counts them, lnbench down removes them.
type Objects interface {
	// RunObjects counts each run id's containers, networks and volumes.
	RunObjects(ctx context.Context) (map[string]int, error)
	// Down removes run id's ("" every run's) and says what it removed.
	Down(ctx context.Context, runID string) (fmt.Stringer, error)
}

// LocalObjects is implemented by drivers whose objects live on this
// machine's engine; Objects is nil when that engine does not answer.
type LocalObjects interface {
	Objects(ctx context.Context) Objects
}

// Sweeper is implemented by drivers whose objects spread over several
// engines: Sweep removes run id's ("" every run's) from each engine that
// answers, says what it removed, and names in its error the engines that
// did not answer and the command to run again.
type Sweeper interface {
	Sweep(ctx context.Context, o Options, runID string) (string, error)
}

// HasCLN reports whether the topology holds a Core Lightning node.
func HasCLN(topo topology.Topology) bool {
	return slices.ContainsFunc(topo.Nodes, func(n topology.Node) bool { return n.Implementation == "cln" })
}

// ShimWarning is the one line a run with CLN nodes prints when exe, the
// lnbench that gives them their bitcoin-cli, has no standalone shim beside
// it: lnbench itself then answers every bcli call, its package init first
// (about 170 ms of CPU a call against the standalone's 26 ms, docs/cln.md),
// which the nodes' own figures carry. "" when the shim is there.
func ShimWarning(exe string, topo topology.Topology) string {
	if exe == "" || !HasCLN(topo) || bitcoincli.Beside(exe) != exe {
		return ""
	}
	return fmt.Sprintf("warning: no %s beside %s: CLN's bitcoin-cli is lnbench itself, its package init on every chain call (about 170 ms of CPU against 26 ms), counted in the nodes' figures; build both as run.sh does", bitcoincli.StandaloneName, exe)
}
