package swarm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/topology"
	"github.com/lnbench/lnbench/usage"
)

// fakeDocker answers docker commands per engine from a function and
// records every call as "host args…".
type fakeDocker struct {
	mu     sync.Mutex
	calls  []string
	answer func(host string, args []string) (string, error)
}

func (f *fakeDocker) run(ctx context.Context, host string, env []string, args ...string) (string, error) {
	f.mu.Lock()
	f.calls = append(f.calls, host+" "+strings.Join(args, " "))
	f.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return f.answer(host, args)
}

func (f *fakeDocker) called(prefix string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// threeEngines is a checked cluster of three engines (lnbe-1 the manager)
// whose docker commands go to f.
func threeEngines(f *fakeDocker) Cluster {
	es := []Engine{{"lnbe-1", "198.18.0.11", "fake://1"}, {"lnbe-2", "198.18.0.12", "fake://2"}, {"lnbe-3", "198.18.0.13", "fake://3"}}
	return Cluster{Engines: es, Manager: es[0], Nodes: []string{"lnbe-1", "lnbe-2", "lnbe-3"},
		NodeLabels: map[string]map[string]string{}, Run: f.run}
}

func readStack(t *testing.T, path string) composefile.File {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f composefile.File
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

// A topology node's own cpus/memory reach its service's
// deploy.resources, over the run's limits field by field (issue 19: swarm
// ignored them while compose applied them).
func TestNodeOwnLimitsInTheStack(t *testing.T) {
	topo := topology.Topology{Name: "limits", Nodes: []topology.Node{
		{Name: "alice", Implementation: "lnd", Build: "k"},
		{Name: "bob", Implementation: "lnd", Build: "k", Memory: "400m"},
		{Name: "carol", Implementation: "lnd", Build: "k", CPUs: 0.5},
	}}
	b, err := New(t.Context(), Options{NetworkOptions: composefile.NetworkOptions{RunID: "r1", WorkDir: t.TempDir(), ArtifactsDir: t.TempDir(), Topology: topo, NodeImages: map[string]string{"k": "img:1"}, DefaultLimits: composefile.Limits{CPUs: 1, Memory: "1g"}}, Cluster: threeEngines(&fakeDocker{})})
	if err != nil {
		t.Fatal(err)
	}
	f := readStack(t, b.File())
	want := map[string]composefile.ResourceLimits{
		"alice": {CPUs: "1", Memory: "1g"}, "bob": {CPUs: "1", Memory: "400m"}, "carol": {CPUs: "0.5", Memory: "1g"}}
	for name, w := range want {
		var got composefile.ResourceLimits
		if d := f.Services[name].Deploy; d != nil && d.Resources != nil {
			got = d.Resources.Limits
		}
		if got != w {
			t.Errorf("%s: deploy.resources.limits %+v, want %+v", name, got, w)
		}
	}
}

// StartNode deploys the node with the environment its start asks for
// (issue 19: swarm kept the one it was made with).
func TestStartNodeRefreshesEnv(t *testing.T) {
	topo := topology.Topology{Name: "env", Nodes: []topology.Node{{Name: "alice", Implementation: "lnd", Build: "k"}}}
	var deployed composefile.File
	f := &fakeDocker{}
	f.answer = func(host string, args []string) (string, error) {
		if len(args) > 1 && args[0] == "stack" && args[1] == "deploy" {
			deployed = readStack(t, args[slices.Index(args, "-c")+1])
			return "", errors.New("fake: deployed")
		}
		return "", nil
	}
	b, err := New(t.Context(), Options{NetworkOptions: composefile.NetworkOptions{RunID: "r1", WorkDir: t.TempDir(), ArtifactsDir: t.TempDir(), Topology: topo, NodeImages: map[string]string{"k": "img:1"}, Configs: map[string]backend.NodeConfig{"": {Env: []string{"GOGC=100"}}}}, Cluster: threeEngines(f)})
	if err != nil {
		t.Fatal(err)
	}
	b.spec.Chain = backend.ChainSpec{RPCUser: "u", RPCPass: "p"}
	_, err = b.StartNode(t.Context(), backend.NodeSpec{Name: "alice", Implementation: "lnd", Env: []string{"GOGC=50"}, ExtraArgs: []string{"--x"}})
	if err == nil || !strings.Contains(err.Error(), "fake: deployed") {
		t.Fatalf("StartNode: %v", err)
	}
	alice := deployed.Services["alice"]
	if alice.Environment["GOGC"] != "50" || !slices.Contains(alice.Command, "--x") {
		t.Errorf("deployed alice: env %v, command %v; want GOGC=50 and --x", alice.Environment, alice.Command)
	}
	if got := readStack(t, b.File()).Services["alice"].Environment["GOGC"]; got != "50" {
		t.Errorf("the artifacts' stack file has GOGC=%s, want 50", got)
	}
}

// Actors lists each running service's container with the engine that runs
// it (the collector asks that engine when the cgroup is not readable
// here), its role, and names the services that are not running.
func TestActorsOnTheirEngines(t *testing.T) {
	topo := topology.Topology{Name: "actors", Nodes: []topology.Node{
		{Name: "alice", Implementation: "lnd", Build: "k", Placement: "lnbe-1"},
		{Name: "bob", Implementation: "lnd", Build: "k", Placement: "lnbe-3"},
		{Name: "carol", Implementation: "lnd", Build: "k", Placement: "lnbe-2"}}}
	f := &fakeDocker{}
	node := map[string]string{"alice": "n1", "bob": "n3", "btcd": "n1"}
	f.answer = func(host string, args []string) (string, error) {
		switch {
		case args[0] == "node" && args[1] == "ls":
			return "n1 lnbe-1\nn2 lnbe-2\nn3 lnbe-3", nil
		case args[0] == "service" && args[1] == "ps":
			svc := args[len(args)-1][strings.LastIndexByte(args[len(args)-1], '_')+1:]
			return "task-" + svc, nil
		case args[0] == "inspect" && strings.HasPrefix(args[len(args)-1], "task-"):
			svc := strings.TrimPrefix(args[len(args)-1], "task-")
			if svc == "carol" {
				return "failed|task: non-zero exit (1)|c-carol|n2|", nil
			}
			return "running||c-" + svc + "|" + node[svc] + "|10009:30001 ", nil
		case args[0] == "inspect":
			var out []string
			for _, id := range args[3:] {
				out = append(out, id+" 999999999")
			}
			return strings.Join(out, "\n"), nil
		}
		return "", fmt.Errorf("fake: unexpected %v", args)
	}
	b, err := New(t.Context(), Options{NetworkOptions: composefile.NetworkOptions{RunID: "r1", WorkDir: t.TempDir(), ArtifactsDir: t.TempDir(), Topology: topo, NodeImages: map[string]string{"k": "img:1"}}, Cluster: threeEngines(f)})
	if err != nil {
		t.Fatal(err)
	}
	b.started = []string{"alice", "bob", "btcd", "carol"}
	actors, err := b.Actors(t.Context())
	if err == nil || !strings.Contains(err.Error(), `carol: no running task ("failed"`) {
		t.Errorf("err %v", err)
	}
	want := []backend.Actor{
		{Name: "alice", Role: usage.RoleNode, ContainerID: "c-alice", Engine: "fake://1"},
		{Name: "bob", Role: usage.RoleNode, ContainerID: "c-bob", Engine: "fake://3"},
		{Name: "btcd", Role: usage.RoleChain, ContainerID: "c-btcd", Engine: "fake://1"}}
	if !reflect.DeepEqual(actors, want) {
		t.Errorf("actors\n %+v\nwant\n %+v", actors, want)
	}
	if n := len(f.called("fake://1 inspect --format {{.Id}} {{.State.Pid}}")); n != 1 {
		t.Errorf("%d inspects on lnbe-1, want one for its two containers", n)
	}
}

var _ backend.ActorLister = (*Backend)(nil)
