//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend/swarm"
	"github.com/lnbench/lnbench/internal/runs"
	"github.com/lnbench/lnbench/record/traces"
)

// swarmTopology writes alice → carol1 → bob with each on its own engine.
func swarmTopology(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "topology.yml")
	if err := os.WriteFile(path, []byte(`name: `+name+`
nodes: [{name: alice, placement: lnbe-1}, {name: carol1, placement: lnbe-2}, {name: bob, placement: lnbe-3}]
channels: [{from: alice, to: carol1}, {from: carol1, to: bob}]
payers: [alice]
payee: bob
`), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// noLeftovers fails the test if anything of the run is left on an engine.
func noLeftovers(t *testing.T, engines, runID string) {
	t.Helper()
	c, err := swarm.Check(context.Background(), mustEngines(t, engines))
	if err != nil {
		t.Errorf("swarm check: %v", err)
		return
	}
	if left, err := swarm.Leftovers(context.Background(), c, "label=lnbench.run="+runID); err != nil || len(left) > 0 {
		t.Errorf("left on the engines: %v %v", left, err)
		swarm.Down(context.Background(), c, runID, os.Stderr)
	}
}

// TestSwarmProfiling runs AlicePaysBobViaCarol across three engines with
// iteration sampling: one sampler per engine profiles that engine's node,
// and the windows (pprof, folded, SVG flame graphs, the index, the report's
// flame graph pages) come out as from compose. The same scenario without
// sampling, on the same swarm, gives the sampler's overhead.
// checkSwarmProfiling: each engine's sampler profiled its own node only, one
// window per measured iteration, and the flame graphs came out as from compose.
func checkSwarmProfiling(t *testing.T, run string, iterations int) {
	t.Helper()
	stack, _ := os.ReadFile(filepath.Join(run, "stack.yml"))
	for engine, node := range map[string]string{"lnbe-1": "alice", "lnbe-2": "carol1", "lnbe-3": "bob"} {
		re := regexp.MustCompile(`(?s)  sampler-` + engine + `:\n.*?--target\n\s+- (\w+)=http://\w+:6060\n(.*?)\n  \S`)
		m := re.FindSubmatch(stack)
		if m == nil || string(m[1]) != node || strings.Contains(string(m[2]), "--target") {
			t.Errorf("stack.yml: sampler-%s does not profile exactly %s", engine, node)
		}
	}
	ws, err := traces.ReadIndex(run)
	if err != nil {
		t.Fatalf("traces index: %v", err)
	}
	checkWindows(t, run, ws)
	per := map[string]int{}
	for _, w := range ws {
		per[w.Actor]++
	}
	for _, a := range []string{"alice", "carol1", "bob"} {
		if per[a] != iterations {
			t.Errorf("%s: %d windows, want %d (one per measured iteration): %v", a, per[a], iterations, per)
		}
	}
	for _, f := range []string{"Alice_traces", "Carol1_traces", "Bob_traces", "flamegraphs.html", "flamegraphs-timeline.svg"} {
		if _, err := os.Stat(filepath.Join(run, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
}

// TestSwarmUpDown brings a topology up on the swarm with lnbench up, checks
// each node answers lncli through its engine as printed, then removes it
// with lnbench down --backend swarm: nothing of the run is left on any
// engine, nor its work folder.
func TestSwarmUpDown(t *testing.T) {
	bin := composeSetup(t)
	engines, _ := testbedUp(t, 3)
	topo := swarmTopology(t, "UpAcrossEngines")
	out, err := lnbenchRun(t, bin, 8*time.Minute, nil, "up", topo, "--backend", "swarm", "--swarm-engines", engines, "--artifacts", t.TempDir())
	t.Logf("lnbench up --backend swarm:\n%s", out)
	m := regexp.MustCompile(`run id (\S+), stack`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("up did not print a run id: %v", err)
	}
	id := m[1]
	t.Cleanup(func() { noLeftovers(t, engines, id) })
	if err != nil {
		t.Fatalf("up: %v", err)
	}
	for _, node := range []string{"alice", "carol1", "bob"} {
		line := regexp.MustCompile(`(?m)^` + node + `\s+(docker -H \S+ exec \S+ lncli .*getinfo)$`).FindStringSubmatch(out)
		if line == nil {
			t.Errorf("%s: no lncli line", node)
			continue
		}
		b, err := exec.Command("sh", "-c", line[1]).CombinedOutput()
		if err != nil || !strings.Contains(string(b), `"alias": "`+node+`"`) {
			t.Errorf("%s: %s: %v\n%s", node, line[1], err, b)
		}
	}
	if !strings.Contains(out, "engine lnbe-2, gRPC 198.18.0.12:") {
		t.Errorf("up does not say carol1 runs on lnbe-2 with gRPC on its address")
	}
	work := filepath.Join(runs.Root(), id)
	if _, err := os.Stat(work); err != nil {
		t.Errorf("work folder of the up: %v", err)
	}
	out, err = lnbenchRun(t, bin, 3*time.Minute, nil, "down", "--backend", "swarm", "--swarm-engines", engines, id)
	t.Logf("lnbench down --backend swarm:\n%s", out)
	if err != nil || !strings.Contains(out, "removed 4 service(s)") || !strings.Contains(out, "and its work folder") {
		t.Errorf("down: %v", err)
	}
	if _, err := os.Stat(work); !os.IsNotExist(err) {
		t.Errorf("work folder %s left after down: %v", work, err)
	}
	noLeftovers(t, engines, id)
}
