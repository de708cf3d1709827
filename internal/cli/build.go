package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/nodebuild"
)

func buildCmd(stdout, stderr io.Writer) *cobra.Command {
	var images, cache string
	var versions []string
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Build static node binaries (lnd, lncli, btcd, btcctl) into the cache; does nothing when current",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := findImages(images)
			if err != nil {
				return err
			}
			specs, err := selectSpecs(dir, versions)
			if err != nil {
				return err
			}
			for _, s := range specs {
				start := time.Now()
				r, err := nodebuild.Ensure(cmd.Context(), cache, s, stderr)
				if err != nil {
					return err
				}
				state := "cached"
				if r.Built {
					state = "built"
				}
				fmt.Fprintf(stdout, "%s %s: %s in %.1fs → %s\n", s.Implementation, s.Version, state, time.Since(start).Seconds(), r.Dir)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&images, "images", "", "folder of node build modules (default: images/ of the repository)")
	cmd.Flags().StringVar(&cache, "cache", nodebuild.DefaultCacheDir(), "binary cache folder ($LNBENCH_CACHE)")
	cmd.Flags().StringSliceVar(&versions, "version", []string{"lnd/v0.21.0-beta"}, "impl/version to build, or 'all'")
	return cmd
}

func selectSpecs(images string, versions []string) ([]nodebuild.Spec, error) {
	if len(versions) == 1 && versions[0] == "all" {
		return nodebuild.Specs(images)
	}
	var out []nodebuild.Spec
	for _, v := range versions {
		impl, ver, ok := cut(v)
		if !ok {
			return nil, fmt.Errorf("--version %q: use impl/version, e.g. lnd/v0.21.0-beta", v)
		}
		s, err := nodebuild.Find(images, impl, ver)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func cut(v string) (string, string, bool) {
	for i := 0; i < len(v); i++ {
		if v[i] == '/' {
			return v[:i], v[i+1:], i > 0 && i < len(v)-1
		}
	}
	return "", "", false
}
