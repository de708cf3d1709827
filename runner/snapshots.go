package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/dbserver/postgres"
	"github.com/lnbench/lnbench/internal/fileutil"
	"github.com/lnbench/lnbench/internal/lines"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/nodespec"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/snapshot"
	"github.com/lnbench/lnbench/topology"
)

// SnapshotOptions turn on snapshots of ready networks (Options.Snapshots):
// each network is restored from the cache when it holds one of the same
// facts, and made there first when it does not.
type SnapshotOptions struct {
	Cache snapshot.Cache
	// Chain is the build key btcd comes from (a fact of every network).
	Chain string
	// Specs, when set, restores only the networks of these node specs
	// (labels) and builds the others: a built and a restored network side
	// by side in one comparison measure what restoring changes.
	Specs []string
}

// restores says whether p's network comes from a snapshot.
func (o *SnapshotOptions) restores(p networkPlan) bool {
	return o != nil && (len(o.Specs) == 0 || slices.Contains(o.Specs, p.cases[0].c.Node))
}

// snapshotFacts are what determine p's network: its topology (without the
// limits and placement, which do not change its data), each node's build
// and the settings that shape its data, and the chain.
func snapshotFacts(backendName string, topo topology.Topology, configs map[string]backend.NodeConfig, chain string, dbDefault string, argsDefault []string) snapshot.Facts {
	t := topo
	t.Nodes = append([]topology.Node(nil), topo.Nodes...)
	t.Channels = append([]topology.Channel(nil), topo.Channels...)
	for i, c := range t.Channels {
		t.Channels[i].CapacitySat = c.Capacity()
	}
	f := snapshot.Facts{Backend: backendName, Chain: fmt.Sprintf("btcd from %s, %s", chain, network.ChainNetwork(topo).Or()), Actors: map[string]snapshot.ActorFacts{}}
	for i, nd := range t.Nodes {
		t.Nodes[i].CPUs, t.Nodes[i].Memory, t.Nodes[i].Placement = 0, "", ""
		cfg, ok := configs[nd.Spec]
		if !ok {
			cfg = backend.NodeConfig{DBBackend: dbDefault, Args: argsDefault}
		}
		build := nd.Build
		if build == "" {
			build = nd.Implementation + "/" + nd.Version
		}
		f.Actors[nd.Name] = snapshot.ActorFacts{Implementation: nd.Implementation, Build: build,
			Settings: append([]string{"db=" + cfg.DBBackend}, cfg.Args...)}
	}
	data, _ := json.Marshal(t)
	f.Topology = string(data)
	return f
}

// snapshotOf is p's network's facts and its snapshot's key.
func snapshotOf(opts Options, backendName string, p networkPlan, configs map[string]backend.NodeConfig) (snapshot.Facts, string) {
	s := opts.Scenario
	facts := snapshotFacts(backendName, p.topo, configs, opts.Snapshots.Chain, s.Node.DBBackend, s.Node.Flags)
	return facts, snapshot.Key(facts)
}

// snapshotState is what a snapshot's data refers to, kept in its manifest.
type snapshotState struct {
	PubKeys     map[string]string `json:"pubkeys"`
	ChainHeight int64             `json:"chain_height"`
	Setup       []network.Phase   `json:"setup"`
}

// restoreError is a snapshot that did not restore: set aside, and the
// network built instead.
type restoreError struct {
	key string
	err error
}

func (e *restoreError) Error() string { return fmt.Sprintf("snapshot %s: %v", e.key, e.err) }
func (e *restoreError) Unwrap() error { return e.err }

// dataFolders are the host folders of a network's actors (the chain's
// included, and the database server's when a node is on one), for a
// backend that keeps them there.
func dataFolders(be backend.Backend, topo topology.Topology, database bool) (map[string]string, backend.DataFolders, error) {
	df, ok := be.(backend.DataFolders)
	if !ok {
		return nil, nil, fmt.Errorf("the %s backend keeps no data folders on this host; run without --snapshots", be.Name())
	}
	out := map[string]string{backend.ChainActor: df.DataFolder(backend.ChainActor)}
	for _, nd := range topo.Nodes {
		out[nd.Name] = df.DataFolder(nd.Name)
	}
	if database {
		out[postgres.Actor] = df.DataFolder(postgres.Actor)
	}
	return out, df, nil
}

// onDatabaseServer says whether a node of topo keeps its state in the
// network's database server (db=postgres), whose databases a snapshot
// keeps as dumps (backend.DatabaseKeeper).
func onDatabaseServer(topo topology.Topology, configs map[string]backend.NodeConfig, dbDefault string) bool {
	for _, nd := range topo.Nodes {
		db := dbDefault
		if cfg, ok := configs[nd.Spec]; ok {
			db = cfg.DBBackend
		}
		if nodespec.OnPostgres(db) {
			return true
		}
	}
	return false
}

// restoreNetwork brings p's network up on be from its snapshot, making the
// snapshot first (a network built on a backend of its own, then stopped
// and saved) when the cache has none.
// From the copy on, *restoring holds the snapshot's key: an error from
// there is the snapshot's (openNetwork sets it aside).
func restoreNetwork(ctx context.Context, opts Options, run Run, p networkPlan, spec NetworkSpec, be backend.Backend, upOpts network.Options, configs map[string]backend.NodeConfig, rec *record.Manifest, restoring *string) (*network.Network, error) {
	facts, key := snapshotOf(opts, be.Name(), p, configs)
	cache := opts.Snapshots.Cache
	m, err := cache.Find(key)
	made := false
	if errors.Is(err, snapshot.ErrNotFound) {
		if m, err = makeSnapshot(ctx, opts, run, p, spec, key, facts, upOpts, configs, rec); err != nil {
			return nil, err
		}
		made = true
	}
	database := onDatabaseServer(p.topo, configs, opts.Scenario.Node.DBBackend)
	folders, df, ferr := dataFolders(be, p.topo, database)
	if ferr != nil {
		return nil, ferr
	}
	*restoring = key
	if err != nil {
		return nil, err
	}
	if err := m.Check(key, facts); err != nil {
		return nil, err
	}
	start := time.Now()
	if err := cache.Restore(key, folders); err != nil {
		return nil, err
	}
	for actor := range folders {
		if err := df.AdoptData(actor); err != nil {
			return nil, fmt.Errorf("restoring %s's folder: %w", actor, err)
		}
	}
	copied := network.Phase{Name: "restore", Seconds: time.Since(start).Seconds(), Start: start}
	if blocks := filepath.Join(folders[backend.ChainActor], chainBlocksFile); fileutil.NonEmpty(blocks) {
		upOpts.ChainBlocks = blocks
	}
	fmt.Fprintf(opts.Log, "setup: restored from snapshot %s, made %s by %s (%s)\n", key, m.Made.Format(time.RFC3339), m.By, snapshot.Size(m.Bytes()))
	n, err := network.Restore(ctx, be, p.topo, upOpts)
	if n != nil {
		n.Phases = append([]network.Phase{copied}, n.Phases...)
	}
	if err == nil {
		rec.Snapshots = append(rec.Snapshots, record.NetworkSnapshot{Network: p.name, Key: key, Made: m.Made, By: m.By, Bytes: m.Bytes(), MadeByThisRun: made})
	}
	return n, err
}

// makeSnapshot builds p's network on a backend of its own, stops it and
// saves its actors' folders in the cache.
func makeSnapshot(ctx context.Context, opts Options, run Run, p networkPlan, spec NetworkSpec, key string, facts snapshot.Facts, upOpts network.Options, configs map[string]backend.NodeConfig, rec *record.Manifest) (snapshot.Manifest, error) {
	fmt.Fprintf(opts.Log, "setup: no snapshot %s of network %s: building it once to save\n", key, p.name)
	spec.Name = p.name + "-snapshot"
	spec.WorkDir += "-snapshot"
	spec.Profiling = false
	defer os.RemoveAll(spec.WorkDir) // keys and macaroons: never left behind
	be, err := opts.NewBackend(spec)
	if err != nil {
		return snapshot.Manifest{}, err
	}
	database := onDatabaseServer(p.topo, configs, opts.Scenario.Node.DBBackend)
	if database {
		keeper, ok := be.(backend.DatabaseKeeper)
		if !ok {
			be.Teardown(context.Background())
			return snapshot.Manifest{}, fmt.Errorf("the %s backend cannot keep a database server's databases; run db=postgres without --snapshots", be.Name())
		}
		keeper.KeepDatabases()
	}
	upOpts.OnPhase = nil
	n, err := network.Up(ctx, be, p.topo, upOpts)
	folders, _, ferr := dataFolders(be, p.topo, database)
	var state snapshotState
	if n != nil {
		for _, ph := range n.Phases {
			rec.Setup = append(rec.Setup, record.Setup{Network: spec.Name, Phase: ph.Name, Seconds: ph.Seconds})
		}
		state.PubKeys, state.Setup = n.PubKeys, n.Phases
		if err == nil {
			state.ChainHeight, err = n.Chain.Height(ctx)
		}
		if err == nil && ferr == nil && network.ChainNetwork(p.topo).ErasedAtStart() {
			err = network.SaveChainBlocks(ctx, n.Chain, filepath.Join(folders[backend.ChainActor], chainBlocksFile))
		}
		n.Close()
	}
	if err != nil || ferr != nil {
		lctx, cancel := context.WithTimeout(context.Background(), teardownTimeout)
		defer cancel()
		_ = be.CollectLogs(lctx, filepath.Join(run.Dir, "nodes", sanitize(spec.Name)))
	}
	// A teardown stops every actor (the chain last), so their data rests.
	tctx, tcancel := context.WithTimeout(context.Background(), teardownTimeout)
	defer tcancel()
	terr := be.Teardown(tctx)
	if err = errors.Join(err, ferr, terr); err != nil {
		return snapshot.Manifest{}, fmt.Errorf("making snapshot %s: %w", key, err)
	}
	for _, dir := range folders {
		removeLogs(dir)
	}
	raw, _ := json.Marshal(state)
	m, err := opts.Snapshots.Cache.Save(snapshot.Manifest{Key: key, Facts: facts, Made: time.Now().UTC(), By: lnbenchVersion(), State: raw}, folders)
	if err != nil {
		return m, err
	}
	fmt.Fprintf(opts.Log, "setup: saved snapshot %s (%s) in %s\n", key, snapshot.Size(m.Bytes()), opts.Snapshots.Cache.Dir)
	return m, nil
}

// keepFailedRestore files what a restore that failed left (its setup
// phases and its actors' logs) under "<network>-restore", apart from the
// network built after it.
func keepFailedRestore(run Run, rec *record.Manifest, network string) {
	for i, s := range rec.Setup {
		if s.Network == network {
			rec.Setup[i].Network = network + "-restore"
		}
	}
	logs := filepath.Join(run.Dir, "nodes", sanitize(network))
	_ = os.Rename(logs, logs+"-restore")
}

// chainBlocksFile, in the chain's folder of a snapshot, holds its blocks
// when its program erases them at start (network.Options.ChainBlocks).
const chainBlocksFile = "replay.blocks"

// removeLogs drops what the actors logged while the snapshot was made, so
// that a restored network's logs are its own.
func removeLogs(dir string) {
	os.RemoveAll(filepath.Join(dir, "logs"))
	os.Remove(filepath.Join(dir, "stdout.log"))
	for _, f := range []string{"lightningd.log", "perfserve.log", "initdb.log"} {
		os.Remove(filepath.Join(dir, f))
	}
}

// lnbenchVersion names this lnbench: its module version, else its commit.
func lnbenchVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "lnbench"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "lnbench " + s.Value[:12]
		}
	}
	return "lnbench " + info.Main.Version
}

// setAside moves a snapshot that did not restore out of the way and says
// so in one line.
func setAside(opts Options, rec *record.Manifest, re *restoreError) {
	line := fmt.Sprintf("snapshot %s did not restore (%s): set aside, the network built instead", re.key, lines.First(re.err.Error()))
	if err := opts.Snapshots.Cache.SetAside(re.key, re.err.Error()); err != nil && !errors.Is(err, os.ErrNotExist) {
		line += fmt.Sprintf(" (setting it aside: %v)", err)
	}
	fmt.Fprintln(opts.Log, line)
	rec.Warnings = append(rec.Warnings, line)
}
