package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/backend/compose"
	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/imagebuild"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/runner"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/topology"
)

func imagesCmd(stdout, stderr io.Writer) *cobra.Command {
	var imagesDir, cache string
	var versions, nodes []string
	var scenarioFile string
	cmd := &cobra.Command{
		Use:   "images",
		Short: "Build the Docker images of the compose backend (Debian base, node image); does nothing when current",
		Long: "Build what is missing: the Debian base image (debootstrap + docker import, no registry)\n" +
			"and one node image per build holding lnd, lncli, btcd and btcctl from the binary cache\n" +
			"(built first when missing), made by images/<impl>/Dockerfile (edit it to add tools).\n" +
			"Tags are content hashes; prints each tag and how long it took.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := findImages(imagesDir)
			if err != nil {
				return err
			}
			specs, err := selectSpecs(dir, versions, nodebuild.Flavour{})
			if err != nil {
				return err
			}
			if scenarioFile != "" || len(nodes) > 0 {
				if specs, err = scenarioBuilds(dir, buildFlags{scenario: scenarioFile, nodes: nodes}); err != nil {
					return err
				}
			}
			for _, s := range specs {
				bins, err := ensureBuild(cmd.Context(), cache, s, stderr)
				if err != nil {
					return err
				}
				base, node, err := imagebuild.Ensure(cmd.Context(), imageOptions(dir, s.Implementation, stderr), bins)
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "base: %s (%s in %.1fs)\n", base.Tag, builtOrCached(base), base.Duration.Seconds())
				fmt.Fprintf(stdout, "%s: %s (%s in %.1fs)\n", s, node.Tag, builtOrCached(node), node.Duration.Seconds())
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&imagesDir, "images", "", "folder of node build modules (default: images/ of the repository)")
	cmd.Flags().StringVar(&cache, "cache", nodebuild.DefaultCacheDir(), "binary cache folder ($LNBENCH_CACHE)")
	cmd.Flags().StringVar(&scenarioFile, "scenario", "", "make the images of every node spec a scenario file needs")
	cmd.Flags().StringArrayVar(&nodes, "node", nil, "make the image of a node spec as lnbench run --node reads it (repeatable)")
	cmd.Flags().StringSliceVar(&versions, "version", []string{"lnd@v0.21.0-beta"}, "IMPL@VERSION (a folder of --images), IMPL@src:PATH (a source tree), or 'all' folders")
	return cmd
}

func builtOrCached(r imagebuild.Result) string {
	if r.Built {
		return "built"
	}
	return "cached"
}

// imageOptions are the image options of impl's builds: its Dockerfile is
// images/<impl>/Dockerfile of imagesDir.
func imageOptions(imagesDir, impl string, log io.Writer) imagebuild.Options {
	return imagebuild.Options{Log: log, Dockerfile: imagebuild.DockerfilePath(imagesDir, impl)}
}

// ensureImagesTimed builds the base and node images when missing, with the
// Dockerfile of imagesDir, and says in one line how long it took.
func ensureImagesTimed(ctx context.Context, imagesDir string, bins nodebuild.Result, log io.Writer) (string, error) {
	start := time.Now()
	base, node, err := imagebuild.Ensure(ctx, imageOptions(imagesDir, bins.Manifest.Implementation, log), bins)
	if err != nil {
		return "", fmt.Errorf("compose backend images: %w", err)
	}
	fmt.Fprintf(log, "images: %s (%s), %s (%s) ready in %.1fs\n", base.Tag, builtOrCached(base), node.Tag, builtOrCached(node), time.Since(start).Seconds())
	return node.Tag, nil
}

// newComposeBackend makes the compose backend of one network from the
// node image the run ensured once, before its artifacts folder existed.
func newComposeBackend(ctx context.Context, n runner.NetworkSpec, s scenario.Scenario, bins builds,
	severalNetworks bool, startTimeout time.Duration, log io.Writer) (backend.Backend, error) {
	tool, toolErr := staticSelf()
	if n.Profiling && toolErr != nil {
		return nil, fmt.Errorf("profiling in containers: %v", toolErr)
	}
	if toolErr != nil && slices.ContainsFunc(n.Topology.Nodes, func(tn topology.Node) bool { return tn.Implementation == "cln" }) {
		return nil, fmt.Errorf("core Lightning in containers runs this lnbench as its bitcoin-cli: %v", toolErr)
	}
	opts := compose.Options{NetworkOptions: networkOptions(n, s, bins.images, bins.images[bins.chain], severalNetworks, startTimeout),
		Tool: tool, CPUSet: runner.CPUList(n.CPUs)}
	return compose.New(ctx, opts)
}

// networkOptions is what compose and swarm are told of network n alike.
// pprof listens inside the network only, always, so that `docker exec …
// sample-loop.sh` works in any run.
func networkOptions(n runner.NetworkSpec, s scenario.Scenario, images map[string]string, chainImage string,
	severalNetworks bool, startTimeout time.Duration) composefile.NetworkOptions {
	o := composefile.NetworkOptions{RunID: n.RunID, Network: n.Name, Separate: severalNetworks,
		WorkDir: n.WorkDir, ArtifactsDir: n.ArtifactsDir, Topology: n.Topology,
		NodeImages: images, ChainImage: chainImage, Configs: n.NodeConfigs,
		DBBackend: s.Node.DBBackend, NodeArgs: s.Node.Flags, Pprof: true, StartTimeout: startTimeout,
		DefaultLimits: composefile.Limits{CPUs: s.Node.CPUs, Memory: s.Node.Memory}}
	if n.Profiling {
		o.Sampler, o.SamplerArgs = true, samplerArgs(s.Sampling, n.Origin)
	}
	return o
}
