package compose

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/backend/driver"
	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/imagebuild"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/nodespec"
	"github.com/lnbench/lnbench/sampler"
	"github.com/lnbench/lnbench/topology"
)

func init() { driver.Register(Driver{}) }

// Driver registers the compose backend: containers of the node images on
// this machine's Docker engine, each with its own interface (so links can
// be impaired) and limits.
type Driver struct{}

func (Driver) Name() string { return "compose" }
func (Driver) Caps() driver.Caps {
	return driver.Caps{Images: true, Limits: true, Faults: true, Impairments: true, CLN: true, Postgres: true, Outlives: true, Snapshots: true, Auto: 1, Overhead: overhead}
}
func (Driver) Fix() string { return "start Docker or use --backend local" }

// Probe asks the engine and looks for a compose command.
func (Driver) Probe(ctx context.Context) error {
	if err := EngineAnswers(ctx, 5*time.Second); err != nil {
		return fmt.Errorf("no Docker engine answered (%v)", err)
	}
	if _, err := DetectTool(ctx); err != nil {
		return fmt.Errorf("the Docker engine answered but %v", err)
	}
	return nil
}

func (Driver) Open(_ context.Context, o driver.Options) (driver.Site, error) {
	return &site{opts: o}, nil
}

// Objects is this machine's engine when it answers.
func (Driver) Objects(ctx context.Context) driver.Objects {
	if EngineAnswers(ctx, 5*time.Second) != nil {
		return nil
	}
	return engineObjects{}
}

type engineObjects struct{}

func (engineObjects) RunObjects(ctx context.Context) (map[string]int, error) { return RunObjects(ctx) }
func (engineObjects) Down(ctx context.Context, id string) (fmt.Stringer, error) {
	return Down(ctx, id)
}

type site struct {
	opts   driver.Options
	builds driver.Builds
	warned sync.Once
}

func (s *site) Stage(ctx context.Context, st driver.Stage) error {
	s.builds = st.Builds
	return s.checkImpairments(ctx, st.Faults, st.Builds.Images[st.Builds.Chain])
}

// checkImpairments refuses delay and loss faults before the run's folder
// exists when the engine's kernel cannot apply them (delay: netem or
// NFQUEUE; loss: a tc BPF filter; a rate limit needs only HTB), or when
// the NFQUEUE delayer (the static lnbench) could not run in a container.
func (s *site) checkImpairments(ctx context.Context, fs []faults.Spec, image string) error {
	var m *Mechanisms
	for _, f := range fs {
		if f.Kind != faults.Delay && f.Kind != faults.Loss {
			continue
		}
		if m == nil {
			p := Probe(ctx, "netem-check", image)
			m = &p
		}
		if err := m.Check(backend.Impairment{Delay: f.Delay, LossPercent: f.LossPercent}); err != nil {
			return fmt.Errorf("fault %q: %v", f, err)
		}
		if s.opts.ToolErr != nil && m.Delay == MechNFQueue && f.Kind == faults.Delay {
			return fmt.Errorf("fault %q: this kernel has no netem, and the user-space delayer instead runs this lnbench in a container: %v", f, s.opts.ToolErr)
		}
	}
	return nil
}

// Network makes the compose backend of one network from the node images
// the run ensured once, before its artifacts folder existed. pprof listens
// inside the network always, so that `docker exec … sample-loop.sh` works
// in any run.
func (s *site) Network(ctx context.Context, n driver.Network) (backend.Backend, error) {
	if n.Profiling && s.opts.ToolErr != nil {
		return nil, fmt.Errorf("profiling in containers: %v", s.opts.ToolErr)
	}
	if s.opts.ToolErr != nil && driver.HasCLN(n.Topology) {
		return nil, fmt.Errorf("core Lightning in containers runs this lnbench as its bitcoin-cli: %v", s.opts.ToolErr)
	}
	if w := driver.ShimWarning(s.opts.Tool, n.Topology); w != "" && s.opts.Log != nil {
		s.warned.Do(func() { fmt.Fprintln(s.opts.Log, w) })
	}
	o := n.NetworkOptions
	o.NodeImages, o.ChainImage, o.Pprof = s.builds.Images, s.builds.Images[s.builds.Chain], true
	if onPostgres(o) {
		img, err := imagebuild.EnsurePostgres(ctx, imagebuild.Options{Log: s.opts.Log})
		if err != nil {
			return nil, fmt.Errorf("db=postgres: the PostgreSQL image: %w", err)
		}
		o.PostgresImage = img.Tag
	}
	b, err := New(ctx, Options{NetworkOptions: o, Tool: s.opts.Tool, CPUSet: backend.CPUList(n.CPUs)})
	if err != nil {
		return nil, err // not a nil *Backend in the interface
	}
	return b, nil
}

// Sampler starts the sidecar container: pprof is reachable only inside
// the compose network.
func (s *site) Sampler(ctx context.Context, be backend.Backend, _ sampler.Config) (sampler.Controller, error) {
	cb := be.(*Backend)
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

// Describe gives each node's docker exec line and its port on 127.0.0.1.
func (s *site) Describe(ctx context.Context, w io.Writer, be backend.Backend, net *network.Network, topo topology.Topology, runID string) {
	cb := be.(*Backend)
	fmt.Fprintf(w, "%s is up (run id %s); compose file %s\n\n", topo, runID, cb.File())
	chain := network.ChainNetwork(topo)
	for _, n := range net.Names() {
		c, _ := cb.ContainerName(ctx, n)
		c = strings.TrimPrefix(c, "/")
		if implementation(topo, n) == "cln" {
			fmt.Fprintf(w, "%-8s docker exec %s lightning-cli --lightning-dir=/data --network=%s getinfo\n", n, c, chain)
			fmt.Fprintf(w, "         JSON-RPC bridge 127.0.0.1 port %s, pubkey %s\n", portOf(net.Endpoints[n].RPCHost), net.PubKeys[n])
			continue
		}
		fmt.Fprintf(w, "%-8s docker exec %s lncli --network=%s --lnddir=/data --rpcserver=localhost:10009 getinfo\n", n, c, chain)
		fmt.Fprintf(w, "         gRPC 127.0.0.1 port %s, pubkey %s\n", portOf(net.Endpoints[n].RPCHost), net.PubKeys[n])
	}
	if c, err := cb.ContainerName(ctx, "btcd"); err == nil {
		fmt.Fprintf(w, "%-8s docker exec %s btcctl --%s --rpcuser=%s --rpcpass=%s --rpccert=/data/rpc.cert --rpcserver=localhost:18556 generate 1\n",
			"btcd", strings.TrimPrefix(c, "/"), chain, net.ChainEP.User, net.ChainEP.Pass)
	}
	fmt.Fprintf(w, "\nremove it with: lnbench down %s\n", runID)
}

func implementation(topo topology.Topology, name string) string {
	for _, n := range topo.Nodes {
		if n.Name == name {
			return n.Implementation
		}
	}
	return ""
}

func portOf(hostPort string) string {
	if i := strings.LastIndexByte(hostPort, ':'); i >= 0 {
		return hostPort[i+1:]
	}
	return hostPort
}

// onPostgres: a node of the network starts on db=postgres.
func onPostgres(o composefile.NetworkOptions) bool {
	if o.DBBackend == nodespec.DBPostgres {
		return true
	}
	for _, c := range o.Configs {
		if c.DBBackend == nodespec.DBPostgres {
			return true
		}
	}
	return false
}

// overhead: a round of two restored AlicePaysBob networks, opened and
// closed together, took 25.2 s between rounds (median), 12.6 s a
// network; 0.20 s between iterations (docs/measured.md).
var overhead = backend.Overhead{Restore: 10 * time.Second, Close: 2600 * time.Millisecond, BetweenIterations: 200 * time.Millisecond}
