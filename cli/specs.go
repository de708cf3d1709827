package cli

import (
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lnbench/lnbench/backend/driver"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/scenario"
)

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
      db variants: bbolt, sqlite, sqlite-native (--db.use-native-sql), postgres (a
      PostgreSQL server started beside the chain, one database per node; local, compose),
      postgres-native (LND's native SQL tables on that server)
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

// addSnapshotFlags adds --snapshots, --fresh-network and --snapshot-dir:
// every command that launches networks restores them by default, and
// each lets its user say otherwise. The command's RunE calls noteFreshSet.
func addSnapshotFlags(fl *pflag.FlagSet, f *runFlags) {
	fl.BoolVar(&f.snapshots, "snapshots", false, "restore each network from a snapshot of the same network ready (chain, funded wallets, open channels, routes), made once in CACHE/snapshots: the default on the local and compose backends; given, a backend that cannot is refused. `lnbench snapshots` lists, exports and prunes them")
	fl.BoolVar(&f.fresh, "fresh-network", false, "build every network from nothing instead of restoring it from a snapshot (the scenario's fresh_network: true; $"+FreshNetworkEnv+"=1 makes it the default)")
	fl.StringVar(&f.snapshotDir, "snapshot-dir", "", "the folder of snapshots (default CACHE/snapshots)")
}

// noteFreshSet records whether --fresh-network was given at all: given
// false, it overrides the scenario's key and $LNBENCH_FRESH_NETWORK.
func (f *runFlags) noteFreshSet(cmd *cobra.Command) {
	f.freshSet = cmd.Flags().Changed("fresh-network")
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
