package swarm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lnbench/lnbench/composefile"

	"github.com/lnbench/lnbench/topology"
)

// fakeSwarm is a swarm's engines as the docker CLI would answer them:
// labelled objects per engine and kind (every object is the run's), an
// engine that is down (refuses at once) or hung (answers nothing until
// the command's context ends), and kinds whose removal always fails.
type fakeSwarm struct {
	mu      sync.Mutex
	objects map[string]map[string][]string // host → kind → ids
	down    map[string]bool
	hung    map[string]bool
	manager string          // host
	stuck   map[string]bool // kind whose rm fails
	calls   map[string]int  // host → commands
}

func newFakeSwarm() *fakeSwarm {
	f := &fakeSwarm{objects: map[string]map[string][]string{}, down: map[string]bool{}, hung: map[string]bool{},
		manager: "fake://1", stuck: map[string]bool{}, calls: map[string]int{}}
	for _, h := range []string{"fake://1", "fake://2", "fake://3"} {
		f.objects[h] = map[string][]string{"container": {h[7:] + "c1"}, "network": {h[7:] + "n1"}, "volume": {h[7:] + "v1", h[7:] + "v2"}}
	}
	f.objects["fake://1"]["service"] = []string{"s1", "s2"}
	f.objects["fake://1"]["config"] = []string{"cfg"}
	f.objects["fake://1"]["secret"] = []string{"sec"}
	return f
}

var kindOf = map[string]string{"ps": "container", "rm": "container", "service": "service", "network": "network", "volume": "volume", "config": "config", "secret": "secret"}

func (f *fakeSwarm) run(ctx context.Context, host string, env []string, args ...string) (string, error) {
	f.mu.Lock()
	f.calls[host]++
	down, hung := f.down[host], f.hung[host]
	f.mu.Unlock()
	if hung {
		<-ctx.Done()
		return "", fmt.Errorf("docker -H %s %s: %w", host, args[0], ctx.Err())
	}
	if down {
		return "", fmt.Errorf("docker -H %s %s: exit status 1: Cannot connect to the Docker daemon at %s. Is the docker daemon running?", host, args[0], host)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case args[0] == "version":
		return "20.10.24", nil
	case args[0] == "info":
		return fmt.Sprint(host == f.manager), nil
	case args[0] == "stack" && args[1] == "rm":
		delete(f.objects[host], "service")
		return "", nil
	}
	kind := kindOf[args[0]]
	if kind == "" {
		return "", fmt.Errorf("fake: unexpected %v", args)
	}
	if args[0] == "ps" || slices.Contains(args, "ls") {
		return strings.Join(f.objects[host][kind], "\n"), nil
	}
	if f.stuck[kind] {
		return "", fmt.Errorf("docker -H %s %s rm: exit status 1: Error response from daemon: %s is in use", host, kind, kind)
	}
	ids := args[1:]
	if args[0] != "rm" {
		ids = args[2:]
	}
	f.objects[host][kind] = slices.DeleteFunc(f.objects[host][kind], func(id string) bool { return slices.Contains(ids, id) })
	return "", nil
}

func (f *fakeSwarm) cluster() Cluster {
	es := []Engine{{"lnbe-1", "198.18.0.11", "fake://1"}, {"lnbe-2", "198.18.0.12", "fake://2"}, {"lnbe-3", "198.18.0.13", "fake://3"}}
	return Cluster{Engines: es, Manager: es[0], Nodes: []string{"lnbe-1", "lnbe-2", "lnbe-3"}, Run: f.run}
}

// quickSweeps shortens the sweep's waits for a test.
func quickSweeps(t *testing.T) {
	p, c, w, s := probeTimeout, callTimeout, sweepWait, sayEvery
	probeTimeout, callTimeout, sweepWait, sayEvery = 100*time.Millisecond, 200*time.Millisecond, 2500*time.Millisecond, time.Second
	t.Cleanup(func() { probeTimeout, callTimeout, sweepWait, sayEvery = p, c, w, s })
}

func TestSweepRemovesEverything(t *testing.T) {
	quickSweeps(t)
	f := newFakeSwarm()
	var log bytes.Buffer
	r, err := Down(t.Context(), f.cluster(), "r1", &log)
	if err != nil {
		t.Fatal(err)
	}
	if r != (Removed{Services: 2, Containers: 3, Networks: 3, Volumes: 6, Configs: 1, Secrets: 1}) {
		t.Errorf("removed %s", r)
	}
}

// An engine that is down is skipped at once: the others are swept, the
// sweep does not wait for it, and the error names it and what stays.
func TestSweepSkipsAnEngineThatIsDown(t *testing.T) {
	quickSweeps(t)
	f := newFakeSwarm()
	f.down["fake://3"] = true
	var log bytes.Buffer
	start := time.Now()
	r, err := Down(t.Context(), f.cluster(), "r1", &log)
	took := time.Since(start)
	var le *LeftError
	if !errors.As(err, &le) || len(le.Lost) != 1 || le.Lost[0].Engine.Name != "lnbe-3" || len(le.Left) != 0 {
		t.Fatalf("err %v", err)
	}
	if took > time.Second {
		t.Errorf("took %v: waited for the engine that is down", took)
	}
	if r.Containers != 2 || r.Volumes != 4 || r.Services != 2 {
		t.Errorf("removed %s; want what the two engines that answer had", r)
	}
	for _, want := range []string{"engine lnbe-3 (fake://3) does not answer (", "Cannot connect to the Docker daemon", "whatever carries lnbench.run=r1 there (containers, networks, volumes) stays"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error on several lines: %q", err)
	}
	if !strings.Contains(log.String(), "swarm: engine lnbe-3 (fake://3) does not answer") {
		t.Errorf("log: %q", log.String())
	}
	if n := f.calls["fake://3"]; n != 1 {
		t.Errorf("%d commands to the engine that is down, want the one probe", n)
	}
}

// An engine that hangs costs one probe's timeout, not the sweep's wait.
func TestSweepSkipsAHungEngine(t *testing.T) {
	quickSweeps(t)
	f := newFakeSwarm()
	f.hung["fake://2"] = true
	start := time.Now()
	_, err := Down(t.Context(), f.cluster(), "r1", nil)
	var le *LeftError
	if !errors.As(err, &le) || len(le.Lost) != 1 || !strings.Contains(le.Lost[0].Err, "no answer in 100ms") {
		t.Fatalf("err %v", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("took %v", took)
	}
}

// What cannot be removed on an engine that answers is waited for at most
// sweepWait, with progress lines, then listed by engine.
func TestSweepIsBoundedAndListsWhatIsLeft(t *testing.T) {
	quickSweeps(t)
	f := newFakeSwarm()
	f.stuck["network"] = true
	var log bytes.Buffer
	start := time.Now()
	_, err := Down(t.Context(), f.cluster(), "r1", &log)
	took := time.Since(start)
	t.Logf("log:\n%serror: %v", log.String(), err)
	if took < sweepWait || took > sweepWait+2*time.Second {
		t.Errorf("took %v, want about %v", took, sweepWait)
	}
	var le *LeftError
	if !errors.As(err, &le) || len(le.Left) != 3 {
		t.Fatalf("err %v", err)
	}
	for _, want := range []string{"left on lnbe-1: network 1n1", "left on lnbe-2: network 2n1", "last failure: ", "is in use"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if !strings.Contains(log.String(), "3 object(s) still there after") {
		t.Errorf("no progress line: %q", log.String())
	}
}

// With the manager down, another engine that is a manager removes the
// services; with none, the error says the stack's objects stay.
func TestSweepWithoutTheManager(t *testing.T) {
	quickSweeps(t)
	f := newFakeSwarm()
	f.down["fake://1"] = true
	_, err := Down(t.Context(), f.cluster(), "r1", nil)
	var le *LeftError
	if !errors.As(err, &le) || le.NoManager == "" || !strings.Contains(err.Error(), "no swarm manager answers (manager lnbe-1 does not answer): the stack's services, configs and secrets stay in the swarm") {
		t.Fatalf("err %v", err)
	}
	f = newFakeSwarm()
	f.down["fake://1"] = true
	f.manager = "fake://2"
	f.objects["fake://2"]["service"] = []string{"s9"}
	r, err := Down(t.Context(), Cluster{Engines: f.cluster().Engines, Run: f.run}, "", nil)
	if !errors.As(err, &le) || le.NoManager != "" || r.Services != 1 {
		t.Fatalf("another manager: removed %s, err %v", r, err)
	}
}

// Teardown with an engine lost names the services that ran there, says
// what it did on the log, and ends in bounded time.
func TestTeardownWithAnEngineLost(t *testing.T) {
	quickSweeps(t)
	f := newFakeSwarm()
	var log bytes.Buffer
	topo := topology.Topology{Name: "lost", Nodes: []topology.Node{
		{Name: "alice", Implementation: "lnd", Build: "k", Placement: "lnbe-1"},
		{Name: "carol", Implementation: "lnd", Build: "k", Placement: "lnbe-2"},
		{Name: "bob", Implementation: "lnd", Build: "k", Placement: "lnbe-3"}}}
	b, err := New(t.Context(), Options{NetworkOptions: composefile.NetworkOptions{RunID: "r1", WorkDir: t.TempDir(), ArtifactsDir: t.TempDir(), Topology: topo, NodeImages: map[string]string{"k": "img:1"}}, Cluster: f.cluster(), Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	b.started = []string{"alice", "bob", "btcd", "carol"}
	f.down["fake://3"] = true
	start := time.Now()
	err = b.Teardown(t.Context())
	t.Logf("log:\n%serror: %v", log.String(), err)
	if took := time.Since(start); took > time.Second {
		t.Errorf("teardown took %v", took)
	}
	for _, want := range []string{"engine lnbe-3 (fake://3) does not answer", "the containers and volumes of bob (lnbench.run=r1) stay there",
		"remove the rest with `lnbench down --backend swarm r1` once lnbe-3 answers again"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("teardown error %v lacks %q", err, want)
		}
	}
	for _, want := range []string{"swarm: tearing down stack", "swarm: engine lnbe-3 (fake://3) does not answer"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log %q lacks %q", log.String(), want)
		}
	}
	if len(f.objects["fake://1"]["service"]) != 0 || len(f.objects["fake://2"]["volume"]) != 0 {
		t.Errorf("not swept where it could be: %v", f.objects)
	}
}
