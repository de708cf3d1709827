package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/lnbench/lnbench/backend/swarm"
	"github.com/lnbench/lnbench/imagebuild"
	"github.com/lnbench/lnbench/runner"
	"github.com/lnbench/lnbench/sampler"
	"github.com/lnbench/lnbench/scenario"
)

// swarmCluster reads the engines file and checks the swarm, before any
// build or image: one line naming the engine and the fix when it fails.
func swarmCluster(ctx context.Context, file string, s scenario.Scenario) (swarm.Cluster, error) {
	if file == "" {
		file = swarm.DefaultEnginesFile()
	}
	engines, err := swarm.ReadEngines(file)
	if err != nil {
		return swarm.Cluster{}, fmt.Errorf("--backend swarm: %v", err)
	}
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	c, err := swarm.Check(cctx, engines)
	if err != nil {
		return c, fmt.Errorf("--backend swarm: %v", err)
	}
	return c, nil
}

// swarmImages maps each build key to the image its services run on swarm:
// the node image plus this lnbench (imagebuild.EnsureTool), so that the
// per-engine samplers and sample-loop.sh find it where nothing is
// bind-mounted. Without a static lnbench the node images serve as they
// are, unless profiling needs it.
func swarmImages(ctx context.Context, bins builds, profiling bool, log io.Writer) (map[string]string, error) {
	tool, err := staticSelf()
	if err != nil {
		if profiling {
			return nil, fmt.Errorf("--backend swarm: profiling: the samplers run lnbench in the containers: %v", err)
		}
		fmt.Fprintf(log, "swarm: %v; sample-loop.sh will not work in the nodes\n", err)
		return bins.images, nil
	}
	out := map[string]string{}
	for key, img := range bins.images {
		r, err := imagebuild.EnsureTool(ctx, img, tool, log)
		if err != nil {
			return nil, fmt.Errorf("--backend swarm: %v", err)
		}
		out[key] = r.Tag
	}
	return out, nil
}

// distributeImages copies the run's images to every engine lacking them
// and says how long it took.
func distributeImages(ctx context.Context, c swarm.Cluster, images map[string]string, log io.Writer) error {
	var imgs []string
	for _, img := range images {
		imgs = append(imgs, img)
	}
	sort.Strings(imgs)
	start := time.Now()
	if _, err := swarm.Distribute(ctx, imgs, c.Engines, log); err != nil {
		return fmt.Errorf("swarm images: %w", err)
	}
	fmt.Fprintf(log, "swarm: %d image(s) on %d engine(s) (manager %s) in %.1fs\n", len(imgs), len(c.Engines), c.Manager.Name, time.Since(start).Seconds())
	return nil
}

// newSwarmBackend makes the swarm backend of one network; images are
// swarmImages'.
func newSwarmBackend(ctx context.Context, n runner.NetworkSpec, s scenario.Scenario, images map[string]string, chain string, c swarm.Cluster,
	severalNetworks bool, startTimeout time.Duration, log io.Writer) (*swarm.Backend, error) {
	return swarm.New(ctx, swarm.Options{NetworkOptions: networkOptions(n, s, images, images[chain], severalNetworks, startTimeout),
		Cluster: c, Log: log})
}

// swarmSampler drives the samplers of a swarm network, one per engine
// hosting nodes: each iteration's windows are asked of all of them, and
// Stop copies their windows into the artifacts folder.
type swarmSampler struct {
	remotes []sampler.Remote
	be      *swarm.Backend
	log     io.Writer
}

func (s swarmSampler) Iteration(ctx context.Context, label string, from, to time.Time) error {
	errs := make([]error, len(s.remotes))
	var wg sync.WaitGroup
	for i, r := range s.remotes {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = r.Iteration(ctx, label, from, to) }()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (s swarmSampler) Stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.be.CollectTraces(ctx); err != nil {
		fmt.Fprintf(s.log, "profiling: copying the windows out of the swarm samplers: %v\n", err)
	}
}

// startSwarmSampler starts the samplers of a swarm network and waits until
// each answers.
func startSwarmSampler(ctx context.Context, be *swarm.Backend, log io.Writer) (sampler.Controller, error) {
	sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	urls, err := be.StartSampler(sctx)
	s := swarmSampler{be: be, log: log}
	for _, u := range urls {
		if u != "" {
			s.remotes = append(s.remotes, sampler.Remote{URL: u})
		}
	}
	if err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// swarmDown removes a run's stack objects (id "" is every run's) through a
// manager that answers and sweeps every engine of the engines file that
// answers, saying on log what it waits for. Engines that do not answer
// are skipped: the error names each, and what may remain on it.
func swarmDown(ctx context.Context, file, id string, run swarm.Runner, log io.Writer) (string, error) {
	if file == "" {
		file = swarm.DefaultEnginesFile()
	}
	engines, err := swarm.ReadEngines(file)
	if err != nil {
		return "", err
	}
	r, err := swarm.Down(ctx, swarm.Cluster{Engines: engines, Run: run}, id, log)
	var reached []string
	var le *swarm.LeftError
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
		if file != swarm.DefaultEnginesFile() {
			again = strings.Replace(again, "--backend swarm", "--backend swarm --swarm-engines "+file, 1)
		}
		err = fmt.Errorf("%w; run `%s` again once %s answers", err, again, strings.Join(le.Unreachable(), ", "))
	}
	return msg, err
}
