package composefile

import (
	"slices"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/topology"
)

func TestNodeLimitsOverDefaults(t *testing.T) {
	def := Limits{CPUs: 1, Memory: "1g"}
	got := withNodeLimits(nil, "bob", Limits{CPUs: 0.5, Memory: ""}, def)
	if got["bob"] != (Limits{CPUs: 0.5, Memory: "1g"}) || len(got) != 1 {
		t.Fatalf("bob: %+v", got)
	}
	in := map[string]Limits{"bob": {CPUs: 2, Memory: "2g"}}
	got = withNodeLimits(in, "bob", Limits{CPUs: 0, Memory: "512m"}, def)
	if got["bob"] != (Limits{CPUs: 2, Memory: "512m"}) || in["bob"] != (Limits{CPUs: 2, Memory: "2g"}) {
		t.Fatalf("over a per-service limit: %+v (input changed: %+v)", got, in)
	}
}

// AddNodes gives each node its build's image and spec's config, btcd the
// first node's image, and a node's own cpus/memory over the run's limits
// (both backends build their specs with it).
func TestAddNodes(t *testing.T) {
	topo := topology.Topology{Nodes: []topology.Node{
		{Name: "alice", Implementation: "lnd", Build: "k1", Spec: "a"},
		{Name: "bob", Implementation: "lnd", Build: "k1", CPUs: 0.5},
		{Name: "carol", Implementation: "lnd", Build: "k2", Memory: "400m"},
	}}
	s := Spec{DefaultLimits: Limits{CPUs: 1, Memory: "1g"}}
	err := s.AddNodes(topo.Nodes, map[string]string{"k1": "img:1", "k2": "img:2"},
		map[string]backend.NodeConfig{"a": {DBBackend: "sqlite", Env: []string{"GOGC=50"}}}, backend.NodeConfig{Args: []string{"--x"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.ChainImage != "img:1" || len(s.Nodes) != 3 || s.Nodes[2].Image != "img:2" {
		t.Fatalf("images: chain %s, nodes %+v", s.ChainImage, s.Nodes)
	}
	if a := s.Nodes[0]; a.DBBackend != "sqlite" || !slices.Equal(a.Env, []string{"GOGC=50"}) || len(a.ExtraArgs) != 0 {
		t.Errorf("alice's config: %+v", a)
	}
	if b := s.Nodes[1]; !slices.Equal(b.ExtraArgs, []string{"--x"}) {
		t.Errorf("bob's config (the default): %+v", b)
	}
	want := map[string]Limits{"bob": {CPUs: 0.5, Memory: "1g"}, "carol": {CPUs: 1, Memory: "400m"}}
	if len(s.Limits) != 2 || s.Limits["bob"] != want["bob"] || s.Limits["carol"] != want["carol"] {
		t.Errorf("limits %+v, want %+v (alice: the defaults)", s.Limits, want)
	}
	if err := s.AddNodes([]topology.Node{{Name: "dave", Implementation: "lnd", Build: "k9"}}, nil, nil, backend.NodeConfig{}); err == nil || !strings.Contains(err.Error(), "node dave: no image") {
		t.Errorf("missing image: %v", err)
	}
}

// Refresh takes a start's database, flags and environment, and says when
// they changed the node.
func TestNodeRefresh(t *testing.T) {
	n := Node{Name: "alice", DBBackend: "bbolt", ExtraArgs: []string{"--a"}, Env: []string{"GOGC=100"}}
	if n.Refresh(backend.NodeSpec{DBBackend: "bbolt", ExtraArgs: []string{"--a"}, Env: []string{"GOGC=100"}}) {
		t.Error("the same start changed the node")
	}
	args := []string{"--a"}
	spec := backend.NodeSpec{DBBackend: "bbolt", ExtraArgs: args, Env: []string{"GOGC=50"}}
	if !n.Refresh(spec) || !slices.Equal(n.Env, []string{"GOGC=50"}) {
		t.Fatalf("env change: %+v", n)
	}
	args[0] = "--changed"
	if n.ExtraArgs[0] != "--a" {
		t.Error("Refresh keeps the caller's slice")
	}
	if !n.Refresh(backend.NodeSpec{DBBackend: "sqlite"}) || n.DBBackend != "sqlite" || len(n.Env) != 0 || len(n.ExtraArgs) != 0 {
		t.Errorf("db change: %+v", n)
	}
}
