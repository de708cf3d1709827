package runner

import (
	"testing"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/snapshot"
	"github.com/lnbench/lnbench/topology"
)

// A network's snapshot key follows what shapes its data (builds, settings,
// channels, the chain) and not what only limits or places its processes.
func TestSnapshotFactsKeyWhatShapesTheData(t *testing.T) {
	base := func() topology.Topology {
		topo := topology.AlicePaysBob().WithDefaults("lnd", "v0.21.0-beta")
		for i := range topo.Nodes {
			topo.Nodes[i].Spec, topo.Nodes[i].Build = "rel", "lnd-v0.21.0-beta-a1338a4f"
		}
		return topo
	}
	configs := map[string]backend.NodeConfig{"rel": {DBBackend: "bolt", Args: []string{"--maxpendingchannels=10"}}}
	key := func(topo topology.Topology, cfg map[string]backend.NodeConfig, chain string) string {
		return snapshot.Key(snapshotFacts("local", topo, cfg, chain, "", nil))
	}
	want := key(base(), configs, "lnd-k1")

	limited := base()
	limited.Nodes[0].CPUs, limited.Nodes[0].Memory, limited.Nodes[1].Placement = 1.5, "512m", "lnbe-2"
	if key(limited, configs, "lnd-k1") != want {
		t.Error("a CPU or memory limit or a placement changed the key")
	}
	explicit := base()
	explicit.Channels[0].CapacitySat = topology.DefaultCapacitySat
	if key(explicit, configs, "lnd-k1") != want {
		t.Error("the default capacity written out changed the key")
	}
	rebuilt := base()
	rebuilt.Nodes[1].Build = "lnd-src-22fe9d40"
	bigger := base()
	bigger.Channels[0].CapacitySat = 3_000_000
	for name, got := range map[string]string{
		"another build":           key(rebuilt, configs, "lnd-k1"),
		"another channel size":    key(bigger, configs, "lnd-k1"),
		"another database":        key(base(), map[string]backend.NodeConfig{"rel": {DBBackend: "sqlite", Args: configs["rel"].Args}}, "lnd-k1"),
		"other flags":             key(base(), map[string]backend.NodeConfig{"rel": {DBBackend: "bolt"}}, "lnd-k1"),
		"btcd from another build": key(base(), configs, "lnd-k2"),
	} {
		if got == want {
			t.Errorf("%s kept the key", name)
		}
	}
	if base().Nodes[0].CPUs != 0 {
		t.Fatal("base changed")
	}
	orig := limited.Nodes[0].CPUs
	_ = snapshotFacts("local", limited, configs, "lnd-k1", "", nil)
	if snapshot.Key(snapshotFacts("compose", base(), configs, "lnd-k1", "", nil)) == want {
		t.Error("another backend's folder layout kept the key")
	}
	if limited.Nodes[0].CPUs != orig {
		t.Error("snapshotFacts changed the plan's topology")
	}
}
