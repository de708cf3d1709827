package swarm

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/topology"
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
	b, err := New(t.Context(), Options{RunID: "r1", WorkDir: t.TempDir(), ArtifactsDir: t.TempDir(), Topology: topo,
		NodeImages: map[string]string{"k": "img:1"}, Cluster: threeEngines(&fakeDocker{}),
		DefaultLimits: composefile.Limits{CPUs: 1, Memory: "1g"}})
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
	b, err := New(t.Context(), Options{RunID: "r1", WorkDir: t.TempDir(), ArtifactsDir: t.TempDir(), Topology: topo,
		NodeImages: map[string]string{"k": "img:1"}, Cluster: threeEngines(f),
		Configs: map[string]backend.NodeConfig{"": {Env: []string{"GOGC=100"}}}})
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
