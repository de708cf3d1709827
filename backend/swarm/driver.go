package swarm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/backend/driver"
	"github.com/lnbench/lnbench/imagebuild"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/sampler"
	"github.com/lnbench/lnbench/topology"
)

func init() { driver.Register(Driver{}) }

// Driver registers the swarm backend: a stack spread over the engines of
// an existing swarm. It injects no faults and pins no CPU sets.
type Driver struct{}

func (Driver) Name() string { return "swarm" }
func (Driver) Caps() driver.Caps {
	return driver.Caps{Images: true, Engines: true, Limits: true, Outlives: true, Overhead: overhead,
		NoCPUSets: "the swarm backend places networks on engines"}
}
func (Driver) Fix() string { return "or use --backend compose or local" }

// Probe checks the docker command only: Open checks the swarm itself,
// with the engines file.
func (Driver) Probe(context.Context) error {
	if _, err := exec.LookPath("docker"); err != nil {
		return errors.New("no docker command on this machine (install the Docker CLI)")
	}
	return nil
}

// Open reads the engines file and checks the swarm, before any build or
// image: one line naming the engine and the fix when it fails.
func (Driver) Open(ctx context.Context, o driver.Options) (driver.Site, error) {
	engines, err := ReadEngines(enginesFile(o))
	if err != nil {
		return nil, fmt.Errorf("--backend swarm: %v", err)
	}
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	c, err := Check(cctx, engines)
	if err != nil {
		return nil, fmt.Errorf("--backend swarm: %v", err)
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return &site{opts: o, cluster: c}, nil
}

func enginesFile(o driver.Options) string {
	if o.EnginesFile == "" {
		return DefaultEnginesFile()
	}
	return o.EnginesFile
}

type site struct {
	opts    driver.Options
	cluster Cluster
	images  map[string]string // build key → the image its services run
	chain   string
}

// Stage makes each build's image carry this lnbench (the per-engine
// samplers and sample-loop.sh find it where nothing is bind-mounted) and
// copies the images to every engine lacking them. Without a static
// lnbench the node images serve as they are, unless profiling needs it.
func (s *site) Stage(ctx context.Context, st driver.Stage) error {
	s.chain = st.Builds.Chain
	s.images = st.Builds.Images
	if s.opts.ToolErr != nil {
		if st.Profiling {
			return fmt.Errorf("--backend swarm: profiling: the samplers run lnbench in the containers: %v", s.opts.ToolErr)
		}
		fmt.Fprintf(s.opts.Log, "swarm: %v; sample-loop.sh will not work in the nodes\n", s.opts.ToolErr)
	} else {
		s.images = map[string]string{}
		for key, img := range st.Builds.Images {
			r, err := imagebuild.EnsureTool(ctx, img, s.opts.Tool, s.opts.Log)
			if err != nil {
				return fmt.Errorf("--backend swarm: %v", err)
			}
			s.images[key] = r.Tag
		}
	}
	var imgs []string
	for _, img := range s.images {
		imgs = append(imgs, img)
	}
	sort.Strings(imgs)
	start := time.Now()
	if _, err := Distribute(ctx, imgs, s.cluster.Engines, s.opts.Log); err != nil {
		return fmt.Errorf("swarm images: %w", err)
	}
	fmt.Fprintf(s.opts.Log, "swarm: %d image(s) on %d engine(s) (manager %s) in %.1fs\n", len(imgs), len(s.cluster.Engines), s.cluster.Manager.Name, time.Since(start).Seconds())
	return nil
}

func (s *site) Network(ctx context.Context, n driver.Network) (backend.Backend, error) {
	o := n.NetworkOptions
	o.NodeImages, o.ChainImage, o.Pprof = s.images, s.images[s.chain], true
	b, err := New(ctx, Options{NetworkOptions: o, Cluster: s.cluster, Log: s.opts.Log})
	if err != nil {
		return nil, err // not a nil *Backend in the interface
	}
	return b, nil
}

// Sampler starts the samplers of a swarm network, one per engine hosting
// nodes, and waits until each answers.
func (s *site) Sampler(ctx context.Context, be backend.Backend, _ sampler.Config) (sampler.Controller, error) {
	sb := be.(*Backend)
	sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	urls, err := sb.StartSampler(sctx)
	c := samplers{be: sb, log: s.opts.Log}
	for _, u := range urls {
		if u != "" {
			c.remotes = append(c.remotes, sampler.Remote{URL: u})
		}
	}
	if err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// samplers drives the samplers of a swarm network: each iteration's
// windows are asked of all of them, and Stop copies their windows into the
// artifacts folder.
type samplers struct {
	remotes []sampler.Remote
	be      *Backend
	log     io.Writer
}

func (s samplers) Iteration(ctx context.Context, label string, from, to time.Time) error {
	errs := make([]error, len(s.remotes))
	var wg sync.WaitGroup
	for i, r := range s.remotes {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = r.Iteration(ctx, label, from, to) }()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (s samplers) Stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.be.CollectTraces(ctx); err != nil {
		fmt.Fprintf(s.log, "profiling: copying the windows out of the swarm samplers: %v\n", err)
	}
}

// Describe says where each node of a swarm network runs and how to reach
// it: docker against its engine, gRPC on the engine's address.
func (s *site) Describe(ctx context.Context, w io.Writer, be backend.Backend, net *network.Network, topo topology.Topology, id string) {
	sb := be.(*Backend)
	fmt.Fprintf(w, "%s is up on the swarm (run id %s, stack %s); stack file %s\n\n", topo, id, sb.Stack(), sb.File())
	chain := network.ChainNetwork(topo)
	for _, n := range net.Names() {
		e, c, _ := sb.Where(ctx, n)
		fmt.Fprintf(w, "%-8s docker -H %s exec %s lncli --network=%s --lnddir=/data --rpcserver=localhost:10009 getinfo\n", n, e.Host, c, chain)
		fmt.Fprintf(w, "         engine %s, gRPC %s, pubkey %s\n", e.Name, net.Endpoints[n].RPCHost, net.PubKeys[n])
	}
	if e, c, err := sb.Where(ctx, "btcd"); err == nil {
		fmt.Fprintf(w, "%-8s docker -H %s exec %s btcctl --%s --rpcuser=%s --rpcpass=%s --rpccert=/data/rpc.cert --rpcserver=localhost:18556 generate 1\n",
			"btcd", e.Host, c, chain, net.ChainEP.User, net.ChainEP.Pass)
	}
	fmt.Fprintf(w, "\nremove it with: lnbench down --backend swarm %s\n", id)
}

// Sweep removes a run's stack objects (id "" is every run's) through a
// manager that answers and sweeps every engine of the engines file that
// answers, saying on o.Log what it waits for. Engines that do not answer
// are skipped: the error names each, what may remain on it, and the
// command to run again.
func (Driver) Sweep(ctx context.Context, o driver.Options, id string) (string, error) {
	file := enginesFile(o)
	engines, err := ReadEngines(file)
	if err != nil {
		return "", err
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	r, err := Down(ctx, Cluster{Engines: engines, Run: o.Docker}, id, o.Log)
	var reached []string
	var le *LeftError
	errors.As(err, &le)
	for _, e := range engines {
		if le == nil || !slices.Contains(le.Unreachable(), e.Name) {
			reached = append(reached, e.Name)
		}
	}
	if len(reached) == 0 {
		return "", fmt.Errorf("%v; no engine of %s answers", err, file)
	}
	msg := fmt.Sprintf("swarm of %s: removed %s", strings.Join(reached, ", "), r)
	if le != nil && len(le.Lost) > 0 {
		again := "lnbench down --backend swarm --all"
		if id != "" {
			again = "lnbench down --backend swarm " + id
		}
		if file != DefaultEnginesFile() {
			again = strings.Replace(again, "--backend swarm", "--backend swarm --swarm-engines "+file, 1)
		}
		err = fmt.Errorf("%w; run `%s` again once %s answers", err, again, strings.Join(le.Unreachable(), ", "))
	}
	return msg, err
}

// overhead is not measured on a swarm: these are compose's figures (its
// containers are compose's), which the runner's estimate test holds them to.
var overhead = backend.Overhead{Restore: 10 * time.Second, Close: 2600 * time.Millisecond, BetweenIterations: 200 * time.Millisecond}
