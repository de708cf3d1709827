package swarm

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	dockerswarm "github.com/docker/docker/api/types/swarm"

	"gopkg.in/yaml.v3"

	"github.com/docker/docker/api/types/container"
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

// threeEngines is a checked cluster of three engines (lnbe-1 the manager)
// whose docker commands go to f and whose API questions to api (none
// when nil).
func threeEngines(f *fakeDocker, api ...*fakeAPI) Cluster {
	es := []Engine{{"lnbe-1", "198.18.0.11", "fake://1"}, {"lnbe-2", "198.18.0.12", "fake://2"}, {"lnbe-3", "198.18.0.13", "fake://3"}}
	c := Cluster{Engines: es, Manager: es[0], Nodes: []string{"lnbe-1", "lnbe-2", "lnbe-3"},
		NodeLabels: map[string]map[string]string{}, Run: f.run}
	if len(api) > 0 {
		c.API = api[0].on
	}
	return c
}

// fakeAPI answers the engines' APIs from documents in memory: the
// manager's (fake://1) services, tasks and nodes, every engine's
// containers; it records each question as "host what".
type fakeAPI struct {
	mu         sync.Mutex
	asked      []string
	services   []dockerswarm.Service
	tasks      []dockerswarm.Task
	nodes      []dockerswarm.Node
	containers map[string]container.InspectResponse // by id, on any engine
}

type fakeEngineAPI struct {
	f    *fakeAPI
	host string
}

func (f *fakeAPI) on(host string) EngineAPI { return fakeEngineAPI{f, host} }

func (f *fakeAPI) ask(host, what string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, host+" "+what)
}

func (f *fakeAPI) count(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, a := range f.asked {
		if strings.HasPrefix(a, prefix) {
			n++
		}
	}
	return n
}

func (e fakeEngineAPI) manager(what string) error {
	e.f.ask(e.host, what)
	if e.host != "fake://1" {
		return fmt.Errorf("fake: %s asked of %s, not the manager", what, e.host)
	}
	return nil
}

func (e fakeEngineAPI) Inspect(_ context.Context, ids ...string) ([]container.InspectResponse, error) {
	e.f.ask(e.host, "inspect "+strings.Join(ids, " "))
	var out []container.InspectResponse
	for _, id := range ids {
		d, ok := e.f.containers[id]
		if !ok {
			return nil, fmt.Errorf("fake: no such container: %s", id)
		}
		out = append(out, d)
	}
	return out, nil
}

func (e fakeEngineAPI) Logs(_ context.Context, id string, tail int) (string, error) {
	e.f.ask(e.host, "logs "+id)
	return "last words of " + id + "\n", nil
}

func (e fakeEngineAPI) Services(_ context.Context, labels ...string) ([]dockerswarm.Service, error) {
	return e.f.services, e.manager("services " + strings.Join(labels, " "))
}

func (e fakeEngineAPI) Tasks(_ context.Context, ids ...string) ([]dockerswarm.Task, error) {
	var out []dockerswarm.Task
	for _, t := range e.f.tasks { // listed newest first, as the engine package sorts them
		if slices.Contains(ids, t.ServiceID) {
			out = append(out, t)
		}
	}
	return out, e.manager("tasks")
}

func (e fakeEngineAPI) Nodes(context.Context) ([]dockerswarm.Node, error) {
	return e.f.nodes, e.manager("nodes")
}

// swarmOf is a fake manager's view of stack "lnb-r1": services by name,
// each with the tasks given newest first (state, container, node ID).
func swarmOf(services map[string][][3]string) *fakeAPI {
	f := &fakeAPI{containers: map[string]container.InspectResponse{}}
	for i, h := range []string{"lnbe-1", "lnbe-2", "lnbe-3"} {
		f.nodes = append(f.nodes, dockerswarm.Node{ID: fmt.Sprintf("n%d", i+1), Description: dockerswarm.NodeDescription{Hostname: h},
			Status: dockerswarm.NodeStatus{State: dockerswarm.NodeStateReady}})
	}
	for _, name := range slices.Sorted(maps.Keys(services)) {
		id := "s-" + name
		f.services = append(f.services, dockerswarm.Service{ID: id, Spec: dockerswarm.ServiceSpec{Annotations: dockerswarm.Annotations{Name: "lnb-r1_" + name}}})
		for k, tk := range services[name] {
			f.tasks = append(f.tasks, dockerswarm.Task{ID: fmt.Sprintf("t-%s-%d", name, k), ServiceID: id, NodeID: tk[2],
				Status: dockerswarm.TaskStatus{State: dockerswarm.TaskState(tk[0]), ContainerStatus: &dockerswarm.ContainerStatus{ContainerID: tk[1]},
					PortStatus: dockerswarm.PortStatus{Ports: []dockerswarm.PortConfig{{TargetPort: 10009, PublishedPort: 30001}}}}})
		}
	}
	return f
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
	api := swarmOf(map[string][][3]string{
		"alice": {{"running", "c-alice", "n1"}},
		"bob":   {{"running", "c-bob", "n3"}, {"failed", "c-bob-old", "n3"}},
		"btcd":  {{"running", "c-btcd", "n1"}},
		"carol": {{"failed", "c-carol", "n2"}}})
	for id, pid := range map[string]int{"c-alice": 999999991, "c-bob": 999999992, "c-btcd": 999999993} {
		api.containers[id] = container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{ID: id, State: &container.State{Pid: pid}}}
	}
	b, err := New(t.Context(), Options{NetworkOptions: composefile.NetworkOptions{RunID: "r1", WorkDir: t.TempDir(), ArtifactsDir: t.TempDir(), Topology: topo, NodeImages: map[string]string{"k": "img:1"}}, Cluster: threeEngines(&fakeDocker{}, api)})
	if err != nil {
		t.Fatal(err)
	}
	if b.stack != "lnb-r1" {
		t.Fatalf("stack %q: the fake's services are lnb-r1_*", b.stack)
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
	if n := api.count("fake://1 inspect"); n != 1 {
		t.Errorf("%d inspections on lnbe-1, want one for its two containers", n)
	}
}

// Dead names the services of a lost engine and the services whose newest
// task ended, with the container's exit code, OOM flag and log tail from
// the engine that ran it; an older failed task of a running service is not
// a death, nor is a task still starting.
func TestDeadFromTypedDocuments(t *testing.T) {
	topo := topology.Topology{Name: "dead", Nodes: []topology.Node{
		{Name: "alice", Implementation: "lnd", Build: "k", Placement: "lnbe-1"},
		{Name: "bob", Implementation: "lnd", Build: "k", Placement: "lnbe-2"},
		{Name: "carol", Implementation: "lnd", Build: "k", Placement: "lnbe-3"},
		{Name: "dave", Implementation: "lnd", Build: "k", Placement: "lnbe-1"}}}
	api := swarmOf(map[string][][3]string{
		"alice": {{"running", "c-alice", "n1"}, {"failed", "c-alice-old", "n1"}},
		"bob":   {{"failed", "c-bob", "n2"}},
		"carol": {{"running", "c-carol", "n3"}},
		"dave":  {{"starting", "c-dave", "n1"}}})
	api.tasks[2].Status.Err = "task: non-zero exit (137)" // bob's
	api.containers["c-bob"] = container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{ID: "c-bob",
		State: &container.State{Status: "exited", ExitCode: 137, OOMKilled: true}, HostConfig: &container.HostConfig{Resources: container.Resources{Memory: 64 << 20}}}}
	api.nodes[2].Status.State = dockerswarm.NodeStateDown // lnbe-3, carol's
	b, err := New(t.Context(), Options{NetworkOptions: composefile.NetworkOptions{RunID: "r1", WorkDir: t.TempDir(), ArtifactsDir: t.TempDir(), Topology: topo, NodeImages: map[string]string{"k": "img:1"}}, Cluster: threeEngines(&fakeDocker{}, api)})
	if err != nil {
		t.Fatal(err)
	}
	deaths := b.Dead(t.Context())
	if len(deaths) != 2 {
		t.Fatalf("deaths %+v, want carol's engine lost and bob's task failed", deaths)
	}
	if d := deaths[0]; d.Actor != "carol" || d.Reason != "its engine was lost (swarm node lnbe-3 is down)" {
		t.Errorf("lost engine: %+v", d)
	}
	d := deaths[1]
	if d.Actor != "bob" || d.ExitCode != 137 || !d.OOM || d.MemoryLimit != 64<<20 || d.Where != "lnbe-2" || !strings.HasPrefix(d.Reason, "task failed") ||
		!slices.Equal(d.LogTail, []string{"last words of c-bob"}) {
		t.Errorf("failed task: %+v", d)
	}
	if n := api.count("fake://2 logs c-bob"); n != 1 {
		t.Errorf("bob's log tail asked %d times of lnbe-2, want once", n)
	}
}

var _ backend.ActorLister = (*Backend)(nil)
