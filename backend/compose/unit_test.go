package compose

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/go-connections/nat"
	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/topology"
	"github.com/lnbench/lnbench/usage"
)

func TestLoopbackPorts(t *testing.T) {
	doc := func(binds ...nat.PortBinding) container.InspectResponse {
		return container.InspectResponse{NetworkSettings: &container.NetworkSettings{
			NetworkSettingsBase: container.NetworkSettingsBase{Ports: nat.PortMap{"10009/tcp": binds, "9735/tcp": nil}}}}
	}
	if got, err := loopbackPorts(doc(nat.PortBinding{HostIP: "127.0.0.1", HostPort: "49153"})); err != nil || !reflect.DeepEqual(got, map[int]int{10009: 49153}) {
		t.Fatalf("got %v, %v", got, err)
	}
	for want, binds := range map[string][]nat.PortBinding{
		"beyond loopback": {{HostIP: "127.0.0.1", HostPort: "49153"}, {HostIP: "0.0.0.0", HostPort: "49153"}},
		"bad host port":   {{HostIP: "127.0.0.1", HostPort: "0"}},
	} {
		if _, err := loopbackPorts(doc(binds...)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: want %q, got %v", binds, want, err)
		}
	}
}

func TestRunFilter(t *testing.T) {
	if got := runFilter(""); got != "label=lnbench.run" {
		t.Errorf("all runs: %q", got)
	}
	if got := runFilter("X-1"); got != "label=lnbench.run=X-1" {
		t.Errorf("one run: %q", got)
	}
	if got := strings.Join(filterArgs([]string{"a", "b"}), " "); got != "--filter a --filter b" {
		t.Errorf("filter args: %q", got)
	}
}

func TestNewNeedsImagesAndArtifacts(t *testing.T) {
	if _, err := New(t.Context(), Options{NetworkOptions: composefile.NetworkOptions{RunID: "x", WorkDir: t.TempDir()}}); err == nil || !strings.Contains(err.Error(), "artifacts") {
		t.Errorf("no artifacts folder: %v", err)
	}
}

// Each node runs its build's image and its spec's flags, with its own
// cpus/memory over the run's limits; btcd runs the chain image given.
func TestNodesGetTheirBuildsImageAndSpecsFlags(t *testing.T) {
	if _, err := DetectTool(t.Context()); err != nil {
		t.Skipf("no compose tool: %v", err)
	}
	topo := topology.Topology{Name: "mixed", Nodes: []topology.Node{
		{Name: "alice", Implementation: "lnd", Version: "v0.21.0-beta", Spec: "new", Build: "k21"},
		{Name: "carol", Implementation: "lnd", Version: "v0.20.2-beta", Spec: "old", Build: "k20", Memory: "400m"},
	}}
	b, err := New(t.Context(), Options{NetworkOptions: composefile.NetworkOptions{RunID: "x", WorkDir: t.TempDir(), ArtifactsDir: t.TempDir(), Topology: topo, DefaultLimits: composefile.Limits{CPUs: 1, Memory: "1g"}, NodeImages: map[string]string{"k21": "lnbench-node:21", "k20": "lnbench-node:20"}, ChainImage: "lnbench-node:20", Configs: map[string]backend.NodeConfig{"new": {DBBackend: "bbolt", Args: []string{"--db.batch-commit-interval=10ms"}},
		"old": {DBBackend: "sqlite", Args: []string{"--channel-commit-batch-size=300"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(b.File())
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Services map[string]struct {
			Image    string   `yaml:"image"`
			Command  []string `yaml:"command"`
			CPUs     float64  `yaml:"cpus"`
			MemLimit string   `yaml:"mem_limit"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	alice, carol, btcd := file.Services["alice"], file.Services["carol"], file.Services["btcd"]
	if alice.Image != "lnbench-node:21" || carol.Image != "lnbench-node:20" || btcd.Image != "lnbench-node:20" {
		t.Errorf("images: alice %s, carol %s, btcd %s", alice.Image, carol.Image, btcd.Image)
	}
	if !slices.Contains(alice.Command, "--db.batch-commit-interval=10ms") || !slices.Contains(carol.Command, "--db.backend=sqlite") ||
		!slices.Contains(carol.Command, "--channel-commit-batch-size=300") || slices.Contains(carol.Command, "--db.batch-commit-interval=10ms") {
		t.Errorf("commands:\nalice %v\ncarol %v", alice.Command, carol.Command)
	}
	if alice.CPUs != 1 || alice.MemLimit != "1g" || carol.CPUs != 1 || carol.MemLimit != "400m" {
		t.Errorf("limits: alice %v/%s (want the run's 1/1g), carol %v/%s (want her own memory 400m)", alice.CPUs, alice.MemLimit, carol.CPUs, carol.MemLimit)
	}
	if _, err := New(t.Context(), Options{NetworkOptions: composefile.NetworkOptions{RunID: "x", WorkDir: t.TempDir(), ArtifactsDir: t.TempDir(), Topology: topo, NodeImages: map[string]string{"k21": "lnbench-node:21"}}}); err == nil || !strings.Contains(err.Error(), "node carol: no image for lnd v0.20.2-beta (build k20)") {
		t.Errorf("missing image: %v", err)
	}
}

func TestActorsOf(t *testing.T) {
	b := &Backend{opts: Options{NetworkOptions: composefile.NetworkOptions{WorkDir: "/w"}}}
	doc := func(id, service string, ports ...string) container.InspectResponse {
		pm := nat.PortMap{}
		for i, p := range ports {
			pm[nat.Port(fmt.Sprintf("%d/tcp", 9000+i))] = []nat.PortBinding{{HostIP: "127.0.0.1", HostPort: p}}
		}
		return container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{ID: id, State: &container.State{Pid: 0}},
			Config:          &container.Config{Labels: map[string]string{"com.docker.compose.service": service}},
			NetworkSettings: &container.NetworkSettings{NetworkSettingsBase: container.NetworkSettingsBase{Ports: pm}}}
	}
	got, ports, err := b.actorsOf([]container.InspectResponse{doc("aaa", "alice", "49153", "49154"), doc("bbb", "btcd", "49155"), doc("ccc", "sampler")})
	if err != nil {
		t.Fatal(err)
	}
	if len(ports) != 3 || !ports[49153] || !ports[49154] || !ports[49155] {
		t.Fatalf("ports %v", ports)
	}
	want := []backend.Actor{{Name: "alice", Role: usage.RoleNode, ContainerID: "aaa", DataDir: "/w/alice"},
		{Name: "btcd", Role: usage.RoleChain, ContainerID: "bbb", DataDir: "/w/btcd"},
		{Name: "sampler", Role: usage.RoleSampler, ContainerID: "ccc"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
	if _, _, err := b.actorsOf([]container.InspectResponse{doc("aaa", "")}); err == nil {
		t.Fatal("a container without its service label is an error")
	}
	// The proxies join only when the containers' processes are visible here.
	if got := withProxy(want, []int{7, 8}); len(got) != 3 {
		t.Fatalf("engine in another PID namespace: %+v", got)
	}
	visible := append([]backend.Actor(nil), want...)
	visible[0].PID = 100
	got = withProxy(visible, []int{7, 8})
	if len(got) != 4 || got[3].Name != "docker-proxy" || got[3].Role != usage.RoleProxy || fmt.Sprint(got[3].PIDs) != "[7 8]" {
		t.Fatalf("proxy actor: %+v", got)
	}
	if got := withProxy(visible, nil); len(got) != 3 {
		t.Fatalf("no proxies (userland-proxy off): %+v", got)
	}
}

var _ backend.ActorLister = (*Backend)(nil)
