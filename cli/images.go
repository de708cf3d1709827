package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/backend/driver"
	"github.com/lnbench/lnbench/buildset"
	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/imagebuild"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/runner"
	"github.com/lnbench/lnbench/scenario"
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
				bins, err := buildset.EnsureBuild(cmd.Context(), cache, s, stderr)
				if err != nil {
					return err
				}
				base, node, err := imagebuild.Ensure(cmd.Context(), buildset.ImageOptions(dir, s.Implementation, stderr), bins)
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "base: %s (%s in %.1fs)\n", base.Tag, buildset.BuiltOrCached(base), base.Duration.Seconds())
				fmt.Fprintf(stdout, "%s: %s (%s in %.1fs)\n", s, node.Tag, buildset.BuiltOrCached(node), node.Duration.Seconds())
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

// networkOf is what every backend is told of network n.
func networkOf(n runner.NetworkSpec, s scenario.Scenario, severalNetworks bool, startTimeout time.Duration) driver.Network {
	o := composefile.NetworkOptions{RunID: n.RunID, Network: n.Name, Separate: severalNetworks,
		WorkDir: n.WorkDir, ArtifactsDir: n.ArtifactsDir, Topology: n.Topology, Configs: n.NodeConfigs,
		DBBackend: s.Node.DBBackend, NodeArgs: s.Node.Flags, StartTimeout: startTimeout,
		DefaultLimits: composefile.Limits{CPUs: s.Node.CPUs, Memory: s.Node.Memory}}
	if n.Profiling {
		o.Sampler, o.SamplerArgs = true, samplerArgs(s.Sampling, n.Origin)
	}
	return driver.Network{NetworkOptions: o, CPUs: n.CPUs, Profiling: n.Profiling}
}
