package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/lnbench/lnbench/backend/driver"
	"github.com/lnbench/lnbench/gitrev"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/nodespec"
	"github.com/lnbench/lnbench/pgo"
	"github.com/lnbench/lnbench/runner"
	"github.com/lnbench/lnbench/scenario"
)

// builds are the ensured builds of a scenario's node specs.
type builds struct {
	byLabel map[string]nodebuild.Result
	keys    []string                    // distinct build keys, first use first
	byKey   map[string]nodebuild.Result // one entry per distinct build
	images  map[string]string           // compose: build key → node image
	chain   string                      // build key btcd comes from: the baseline (or first) spec's
}

// buildSpec is the nodebuild spec of a node spec, its knobs checked. A
// +pgo= naming an earlier run's artifacts folder becomes the profile merged
// from all its profiling windows (stored in the cache by content).
func buildSpec(images, cache string, sp nodespec.Spec) (nodebuild.Spec, error) {
	b, err := nodebuild.Parse(images, sp.Build)
	if err != nil {
		return b, fmt.Errorf("node spec %s: %v", sp.Label, err)
	}
	b.Flavour = nodebuild.Flavour(sp.Flavour)
	if b.Flavour.PGO != "" {
		if b.Flavour.PGO, _, err = pgo.Resolve(cache, b.Flavour.PGO, nil); err != nil {
			return b, fmt.Errorf("node spec %s: %v", sp.Label, err)
		}
	}
	if err := b.Flavour.Validate(); err != nil {
		return b, fmt.Errorf("node spec %s: %v", sp.Label, err)
	}
	return b, nil
}

// ensureBuilds builds (or finds cached) every build the scenario needs,
// each distinct build once, and records the keys in the scenario so that
// every topology node carries its build's key.
func ensureBuilds(ctx context.Context, images, cache string, s *scenario.Scenario, log io.Writer) (builds, error) {
	out := builds{byLabel: map[string]nodebuild.Result{}, byKey: map[string]nodebuild.Result{}}
	specs, err := s.AllSpecs()
	if err != nil {
		return out, err
	}
	// Every spec resolves before the first (possibly long) build starts.
	var bspecs []nodebuild.Spec
	dirtySaid := map[string]bool{}
	for _, sp := range specs {
		b, err := buildSpec(images, cache, sp)
		if err != nil {
			return out, err
		}
		bspecs = append(bspecs, b)
		if b.IsRevision() && !dirtySaid[b.SourceDir] && gitrev.Dirty(ctx, b.SourceDir) {
			dirtySaid[b.SourceDir] = true // once per clone, however many of its revisions
			fmt.Fprintf(log, "node %s: %s has uncommitted changes; #%s builds commit %s as committed, without them\n", sp.Label, b.SourceDir, b.Revision, b.Commit.Short)
		}
	}
	s.BuildKeys = map[string]string{}
	for i, sp := range specs {
		start := time.Now()
		r, err := nodebuild.Locate(cache, bspecs[i])
		if err != nil && brokenCache(err) {
			return out, fmt.Errorf("node spec %s: %w", sp.Label, err)
		}
		if err != nil {
			r, err = ensureBuild(ctx, cache, bspecs[i], log)
		}
		if err != nil {
			return out, fmt.Errorf("node spec %s: %w", sp.Label, err)
		}
		key := r.Manifest.Key
		if _, seen := out.byKey[key]; !seen {
			state := "cached"
			if r.Built {
				state = "built"
			}
			fmt.Fprintf(log, "node %s: %s %s in %.1fs (key %s)\n", sp.Label, bspecs[i], state, time.Since(start).Seconds(), key)
			out.keys = append(out.keys, key)
			out.byKey[key] = r
		}
		out.byLabel[sp.Label] = r
		s.BuildKeys[sp.Label] = key
	}
	out.chain = s.BuildKeys[s.BaselineSpec().Label]
	if out.byKey[out.chain].Manifest.Implementation != "lnd" {
		return out, out.ensureChainBuild(ctx, images, cache, log)
	}
	return out, nil
}

// ensureChainBuild picks the build btcd comes from when the baseline is
// not LND (a CLN build has no btcd): the first LND build of the run, else
// the default LND release, built like any other and imaged with them.
func (b *builds) ensureChainBuild(ctx context.Context, images, cache string, log io.Writer) error {
	for _, key := range b.keys {
		if b.byKey[key].Manifest.Implementation == "lnd" {
			b.chain = key
			return nil
		}
	}
	text := scenario.DefaultNode.Implementation + "@" + scenario.DefaultNode.Version
	spec, err := nodebuild.Parse(images, text)
	if err != nil {
		return fmt.Errorf("btcd for a network without LND nodes comes from %s: %v", text, err)
	}
	r, err := nodebuild.Locate(cache, spec)
	if err != nil {
		if r, err = ensureBuild(ctx, cache, spec, log); err != nil {
			return fmt.Errorf("btcd (from %s): %w", text, err)
		}
	}
	fmt.Fprintf(log, "btcd: from %s (key %s)\n", text, r.Manifest.Key)
	b.chain = r.Manifest.Key
	b.keys = append(b.keys, b.chain)
	b.byKey[b.chain] = r
	return nil
}

// ensureImages makes one node image per distinct build.
func (b *builds) ensureImages(ctx context.Context, images string, log io.Writer) error {
	b.images = map[string]string{}
	for _, key := range b.keys {
		tag, err := ensureImagesTimed(ctx, images, b.byKey[key], log)
		if err != nil {
			return err
		}
		b.images[key] = tag
	}
	return nil
}

// binDirs maps each build key to its binaries (local backend).
func (b builds) binDirs() map[string]string {
	out := map[string]string{}
	for key, r := range b.byKey {
		out[key] = r.BinDir()
	}
	return out
}

// forBackend is what the backend is given of the builds.
func (b builds) forBackend() driver.Builds {
	return driver.Builds{BinDirs: b.binDirs(), Images: b.images, Chain: b.chain}
}

// forReport is each spec's build, by label, for the report.
func (b builds) forReport() map[string]runner.NodeBuild {
	out := map[string]runner.NodeBuild{}
	for label, r := range b.byLabel {
		out[label] = runner.NodeBuild{Manifest: r.Manifest, Image: b.images[r.Manifest.Key]}
	}
	return out
}

// nodeSpecHelp documents node specs for --help.
const nodeSpecHelp = `Node specs (the node under test as a dimension: cases = specs × params):
  --node lnd@v0.21.0-beta --node lnd@v0.20.2-beta     two releases (folders of images/)
  --node mine=lnd@src:../lnd                          a local source tree, labelled "mine"
  --node lnd@src:../lnd#v0.20.0-beta                  a git revision of a clone: its committed content
  --node lnd@v0.21.0-beta+pgo=cpu.pgo+goamd64=v3      build knobs: pgo, goamd64, gcflags, ldflags, tags
  --node lnd@v0.21.0-beta+profile=bottlepay+db=sqlite-native
      config profiles: default (LND's own settings; CLN's default is tuned), tuned
      (db.batch-commit-interval=10ms, caches.rpc-graph-cache-duration=100ms; CLN:
      max-concurrent-htlcs=483), bottlepay (channel-commit-interval=100ms,
      channel-commit-batch-size=300);
      db variants: bbolt, sqlite, sqlite-native (--db.use-native-sql)
  --node lnd@v0.21.0-beta+footprint=small             less memory, same payment path (GOGC=50, small caches)
  --baseline LABEL                                    the spec the others are compared with
Labels default to the version plus what differs (v0.21.0-beta+pgo, src+bottlepay).
--node replaces the scenario file's nodes: list; every build is made before the run starts.`

// addNetworkFlags adds what every command that brings a network up takes:
// where artifacts and builds go, how long a node may take to start, and
// the node specs (--node, --baseline).
func addNetworkFlags(fl *pflag.FlagSet, f *runFlags) {
	fl.StringVar(&f.artifacts, "artifacts", "BenchmarkArtifacts", "folder that receives <UTC timestamp>-<scenario>/ (compose file, logs, reports)")
	fl.StringVar(&f.cache, "cache", nodebuild.DefaultCacheDir(), "binary cache folder ($LNBENCH_CACHE)")
	fl.StringVar(&f.images, "images", "", "folder of node build modules (default: images/ of the repository)")
	fl.DurationVar(&f.startTimeout, "start-timeout", 90*time.Second, "how long a node may take to start")
	addNodeFlags(fl, f)
}

// addBackendFlag adds --backend.
func addBackendFlag(fl *pflag.FlagSet, f *runFlags) {
	fl.StringVar(&f.backend, "backend", "auto", "where nodes run: auto (the first that runs here of "+driver.Either(autoNames())+"), "+backendNames())
	fl.StringVar(&f.swarmEngines, "swarm-engines", "", driver.EnginesHelp)
}

// addNodeFlags adds --node and --baseline.
func addNodeFlags(fl *pflag.FlagSet, f *runFlags) {
	fl.StringArrayVar(&f.nodes, "node", nil, "node spec to compare, [LABEL=]IMPL@VERSION|IMPL@src:PATH[+option=value…] (repeatable; replaces the scenario's nodes:)")
	fl.StringVar(&f.baseline, "baseline", "", "label of the node spec the others are compared with")
}

// applyNodeFlags puts --node and --baseline into the scenario.
func applyNodeFlags(s scenario.Scenario, f runFlags) (scenario.Scenario, error) {
	if len(f.nodes) > 0 {
		specs, err := scenario.ParseNodeFlags(f.nodes)
		if err != nil {
			return s, err
		}
		s.Nodes = specs
		if f.baseline == "" {
			s.Baseline = ""
		}
	}
	if f.baseline != "" {
		s.Baseline = f.baseline
	}
	return s, nil
}

// brokenCache tells a cached build that fails its manifest check (a
// binary missing or changed) from one never built: the first is reported
// with its fix rather than silently built over.
func brokenCache(locateErr error) bool {
	msg := locateErr.Error()
	return strings.Contains(msg, "corrupt") || strings.Contains(msg, "missing binary")
}
