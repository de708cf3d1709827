package composefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/topology"
)

// Both backends begin their file with NetworkOptions.Spec: the work folder
// absolute (in the options too), the run's names and a node's own limits.
func TestNetworkOptionsSpec(t *testing.T) {
	t.Chdir(t.TempDir())
	o := NetworkOptions{RunID: "r1", Network: "launch1", WorkDir: "work", Pprof: true,
		Topology:      topology.Topology{Nodes: []topology.Node{{Name: "alice", Implementation: "lnd", Build: "k"}, {Name: "bob", Implementation: "lnd", Build: "k", Memory: "400m"}}},
		NodeImages:    map[string]string{"k": "img:1"},
		DefaultLimits: Limits{CPUs: 1}, DBBackend: "sqlite", NodeArgs: []string{"--x"}}
	s, err := o.Spec("proj", "1:1")
	if err != nil {
		t.Fatal(err)
	}
	cwd, _ := os.Getwd()
	if want := filepath.Join(cwd, "work"); o.WorkDir != want || s.WorkDir != want {
		t.Errorf("work folder: options %q, spec %q; want %q", o.WorkDir, s.WorkDir, want)
	}
	if s.RunID != "r1" || s.Network != "launch1" || s.Project != "proj" || s.User != "1:1" || !s.Pprof || s.ChainImage != "img:1" {
		t.Errorf("spec: %+v", s)
	}
	if len(s.Nodes) != 2 || s.Nodes[1].DBBackend != "sqlite" || s.Limits["bob"] != (Limits{CPUs: 1, Memory: "400m"}) {
		t.Errorf("nodes %+v, limits %+v", s.Nodes, s.Limits)
	}
	if len(s.Fragments) == 0 {
		t.Error("no fragments loaded")
	}
}

func TestWriteAtomic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "f.yml")
	if err := WriteAtomic(path, []byte("a")); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(path, []byte("b")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "b" {
		t.Fatalf("content %q", b)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left: %v", err)
	}
}

// StartNode: what both backends check before a start, and the refresh
// that tells them to write their file anew.
func TestSpecStartNode(t *testing.T) {
	s := Spec{Nodes: []Node{{Name: "alice", Implementation: "lnd"}, {Name: "carol", Implementation: "cln"}}}
	if _, _, err := s.StartNode(backend.NodeSpec{Name: "alice"}); err == nil || !strings.Contains(err.Error(), "start the chain first") {
		t.Errorf("before the chain: %v", err)
	}
	s.Chain.RPCUser = "u"
	if _, _, err := s.StartNode(backend.NodeSpec{Name: "zed"}); err == nil || !strings.Contains(err.Error(), "node zed is not in this network's topology (it has alice, carol)") {
		t.Errorf("unknown node: %v", err)
	}
	if _, _, err := s.StartNode(backend.NodeSpec{Name: "carol", Implementation: "lnd"}); err == nil || !strings.Contains(err.Error(), `runs it as "cln"`) {
		t.Errorf("implementation: %v", err)
	}
	n, changed, err := s.StartNode(backend.NodeSpec{Name: "alice", Implementation: "lnd", DBBackend: "sqlite", Env: []string{"GOGC=50"}})
	if err != nil || !changed || n.DBBackend != "sqlite" || s.Nodes[0].DBBackend != "sqlite" || s.Nodes[0].Env[0] != "GOGC=50" {
		t.Errorf("refresh: %+v changed %v err %v; stored %+v", n, changed, err, s.Nodes[0])
	}
	if _, changed, _ := s.StartNode(backend.NodeSpec{Name: "alice", DBBackend: "sqlite", Env: []string{"GOGC=50"}}); changed {
		t.Error("the same start again changed the node")
	}
}
