package swarm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	dockerswarm "github.com/docker/docker/api/types/swarm"

	"github.com/lnbench/lnbench/record/traces"
	"github.com/lnbench/lnbench/topology"
)

func TestParseEngines(t *testing.T) {
	es, err := ParseEngines("f", []byte("# testbed\nlnbe-1 198.18.0.11 unix:///x/lnbe-1/docker.sock\n\nlnbe-2 198.18.0.12 ssh://root@h2 # worker\n"))
	if err != nil || len(es) != 2 || es[1] != (Engine{Name: "lnbe-2", Addr: "198.18.0.12", Host: "ssh://root@h2"}) {
		t.Fatalf("%+v %v", es, err)
	}
	for _, bad := range []struct{ text, want string }{
		{"lnbe-1 198.18.0.11", "want \"hostname address DOCKER_HOST\""},
		{"lnbe-1 host1 unix:///s", "not an IP address"},
		{"lnbe-1 198.18.0.11 /var/run/docker.sock", "want unix://"},
		{"a 198.18.0.11 unix:///s\na 198.18.0.12 unix:///t", "listed twice"},
		{"# nothing", "lists no engine"},
	} {
		if _, err := ParseEngines("f", []byte(bad.text)); err == nil || !strings.Contains(err.Error(), bad.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v; want one line with %q", bad.text, err, bad.want)
		}
	}
}

func TestPlace(t *testing.T) {
	c := Cluster{Nodes: []string{"lnbe-1", "lnbe-2", "lnbe-3"}, NodeLabels: map[string]map[string]string{
		"lnbe-1": {"lnbench.engine": "lnbe-1"}, "lnbe-2": {"lnbench.engine": "lnbe-2", "zone": "b"}, "lnbe-3": {"lnbench.engine": "lnbe-3", "zone": "b"}}}
	topo := topology.AlicePaysBobViaCarol(1)
	p, err := Place(topo, c)
	if err != nil {
		t.Fatal(err)
	}
	// btcd first, then the actors round robin: three actors on three engines.
	seen := map[string]bool{}
	for _, n := range topo.Nodes {
		seen[p[n.Name]] = true
	}
	if p["btcd"] != "lnbe-1" || len(seen) != 3 {
		t.Errorf("placement %v: want btcd on lnbe-1 and the three actors on three engines", p)
	}
	topo.Nodes[0].Placement = "lnbe-3"
	topo.Nodes[1].Placement = "zone=b"
	topo.Nodes[2].Placement = "zone=b"
	p, err = Place(topo, c)
	if err != nil {
		t.Fatal(err)
	}
	if p[topo.Nodes[0].Name] != "lnbe-3" || p[topo.Nodes[1].Name] != "lnbe-2" || p[topo.Nodes[2].Name] != "lnbe-3" {
		t.Errorf("pinned placement %v", p)
	}
	for _, bad := range []struct{ pin, want string }{{"lnbe-9", "neither a Ready swarm node"}, {"zone=c", "no Ready swarm node has the label zone=c"}} {
		topo.Nodes[0].Placement = bad.pin
		if _, err := Place(topo, c); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v", bad.pin, err)
		}
	}
}

func TestTaskFrom(t *testing.T) {
	doc := dockerswarm.Task{ID: "t1", NodeID: "n1", Status: dockerswarm.TaskStatus{State: dockerswarm.TaskStateRunning,
		ContainerStatus: &dockerswarm.ContainerStatus{ContainerID: "abc"},
		PortStatus:      dockerswarm.PortStatus{Ports: []dockerswarm.PortConfig{{TargetPort: 10009, PublishedPort: 32768}, {TargetPort: 9735}}}}}
	tk := taskFrom(doc, map[string]string{"n1": "lnbe-2"})
	if tk.Node != "lnbe-2" || tk.Container != "abc" || tk.Ports[10009] != 32768 || len(tk.Ports) != 1 || tk.State != "running" {
		t.Fatalf("%+v", tk)
	}
	// A task not yet placed has no container status; an unknown node keeps its ID.
	tk = taskFrom(dockerswarm.Task{ID: "t2", NodeID: "n9", Status: dockerswarm.TaskStatus{State: dockerswarm.TaskStatePending}}, nil)
	if tk.Node != "n9" || tk.Container != "" || tk.State != "pending" {
		t.Fatalf("%+v", tk)
	}
}

// TestMergeArtifacts checks two samplers' folders merge into one run
// folder: every window file kept, the indexes appended.
func TestMergeArtifacts(t *testing.T) {
	dst := t.TempDir()
	for _, actor := range []string{"alice", "bob"} {
		src := t.TempDir()
		dir := filepath.Join(src, traces.Dir(actor))
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "000001s-x.folded"), []byte(actor+";main 1\n"), 0o644)
		if err := traces.Append(src, traces.Window{Actor: actor, Folded: filepath.Join(traces.Dir(actor), "000001s-x.folded")}); err != nil {
			t.Fatal(err)
		}
		if err := mergeArtifacts(src, dst); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := traces.ReadIndex(dst)
	if err != nil || len(ws) != 2 || ws[0].Actor != "alice" || ws[1].Actor != "bob" {
		t.Fatalf("index %+v %v", ws, err)
	}
	for _, w := range ws {
		if data, err := os.ReadFile(filepath.Join(dst, w.Folded)); err != nil || !strings.HasPrefix(string(data), w.Actor+";") {
			t.Errorf("%s: %q %v", w.Folded, data, err)
		}
	}
}

func TestExitCodeOfTaskErr(t *testing.T) {
	for in, want := range map[string]int{"task: non-zero exit (137)": 137, "task: non-zero exit (1)": 1} {
		if got, ok := exitCodeOfTaskErr(in); !ok || got != want {
			t.Errorf("%q: %d, %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "no suitable node", "exit (x)"} {
		if _, ok := exitCodeOfTaskErr(in); ok {
			t.Errorf("%q: a code", in)
		}
	}
}
