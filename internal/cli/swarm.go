package cli

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/backend/swarm"
	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/runner"
	"github.com/lnbench/lnbench/scenario"
)

// swarmCluster reads the engines file and checks the swarm, before any
// build or image: one line naming the engine and the fix when it fails.
func swarmCluster(ctx context.Context, file string, s scenario.Scenario) (swarm.Cluster, error) {
	if s.Sampling.On() {
		return swarm.Cluster{}, fmt.Errorf("--backend swarm: sampling: profiling needs the sampler sidecar, which the swarm backend does not have yet; drop sampling: or use --backend compose")
	}
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

// distributeImages copies the run's node images to every engine lacking
// them and says how long it took.
func distributeImages(ctx context.Context, c swarm.Cluster, bins builds, log io.Writer) error {
	var imgs []string
	for _, img := range bins.images {
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

// newSwarmBackend makes the swarm backend of one network.
func newSwarmBackend(ctx context.Context, n runner.NetworkSpec, s scenario.Scenario, bins builds, c swarm.Cluster,
	severalNetworks bool, startTimeout time.Duration, log io.Writer) (backend.Backend, error) {
	if n.Profiling {
		return nil, fmt.Errorf("--backend swarm: profiling is not supported on swarm yet")
	}
	return swarm.New(ctx, swarm.Options{RunID: n.RunID, Network: n.Name, Separate: severalNetworks,
		WorkDir: n.WorkDir, ArtifactsDir: n.ArtifactsDir, Topology: n.Topology,
		NodeImages: bins.images, ChainImage: bins.images[bins.chain], Configs: n.NodeConfigs,
		DBBackend: s.Node.DBBackend, NodeArgs: s.Node.Flags, Pprof: true, Cluster: c,
		StartTimeout: startTimeout, Log: log,
		DefaultLimits: composefile.Limits{CPUs: s.Node.CPUs, Memory: s.Node.Memory}})
}

// swarmDown removes a run's stack objects and sweeps every engine.
func swarmDown(ctx context.Context, file, id string) (string, error) {
	if file == "" {
		file = swarm.DefaultEnginesFile()
	}
	engines, err := swarm.ReadEngines(file)
	if err != nil {
		return "", err
	}
	c, err := swarm.Check(ctx, engines)
	if err != nil {
		return "", err
	}
	r, err := swarm.Down(ctx, c, id)
	return fmt.Sprintf("swarm of %s: removed %s", strings.Join(c.Nodes, ", "), r), err
}
