//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend/swarm"
	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/usage"
)

// testbedUp starts n Docker engines in one swarm with
// scripts/testbed-engines.sh (torn down at the end of the test, checked to
// leave nothing) and returns the engines file and how long `up` took.
func testbedUp(t *testing.T, n int) (string, time.Duration) {
	t.Helper()
	needTestbedTools(t)
	script := filepath.Join(repoRoot(t), "scripts", "testbed-engines.sh")
	testbedIn := func(state string, args ...string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, script, args...)
		cmd.Env = append(os.Environ(), "LNBENCH_ENGINES_DIR="+state)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		t.Logf("testbed-engines.sh %s:\n%s", strings.Join(args, " "), out.String())
		return err
	}
	// A testbed left by an e2e process that died (go test's -timeout
	// panics without cleanups) is removed; any other one is not ours.
	if data, err := os.ReadFile(testbedOwnerFile); err == nil {
		var pid int
		var stale string
		if _, err := fmt.Sscanf(string(data), "%d %s", &pid, &stale); err == nil && syscall.Kill(pid, 0) != nil {
			testbedIn(stale, "down")
			os.RemoveAll(filepath.Dir(stale))
			os.Remove(testbedOwnerFile)
		}
	}
	links, _ := exec.Command("ip", "-o", "link", "show").Output()
	testsupport.RequireOrSkip(t, !strings.Contains(string(links), " lnbe-"), "a testbed is already up on this machine (scripts/testbed-engines.sh down removes it)")
	// Not t.TempDir: a test binary killed by its timeout leaves it for the
	// next run's stale check above.
	base, err := os.MkdirTemp("", "lnbench-e2e-testbed-")
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(base, "engines")
	if err := os.WriteFile(testbedOwnerFile, []byte(fmt.Sprintf("%d %s\n", os.Getpid(), state)), 0o644); err != nil {
		t.Fatal(err)
	}
	testbed := func(args ...string) error { return testbedIn(state, args...) }
	t.Cleanup(func() {
		defer os.Remove(testbedOwnerFile)
		defer os.RemoveAll(base)
		if err := testbed("down"); err != nil {
			t.Errorf("testbed down: %v", err)
		}
		for _, left := range testbedLeftovers(state) {
			t.Errorf("left after testbed down: %s", left)
		}
	})
	start := time.Now()
	if err := testbed("up", strconv.Itoa(n)); err != nil {
		t.Fatalf("testbed up %d: %v", n, err)
	}
	return filepath.Join(state, "engines"), time.Since(start)
}

// testbedOwnerFile names the e2e process that brought the testbed up and
// its state folder, so that a later run can remove what a killed one left.
const testbedOwnerFile = "/run/lnbench-e2e-testbed"

// lnbenchRun runs the CLI to the end and returns its combined output.
func lnbenchRun(t *testing.T, bin string, timeout time.Duration, env []string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// onlyRunDir is the one run folder under an --artifacts root.
func onlyRunDir(t *testing.T, root string) string {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil || len(entries) != 1 {
		t.Fatalf("artifacts root %s: %d entries (%v), want one run", root, len(entries), err)
	}
	return filepath.Join(root, entries[0].Name())
}

type swarmSummary struct {
	RunID    string `json:"run_id"`
	Backend  string `json:"backend"`
	Forwards []struct {
		Node  string
		Count int
	}
	Placement []struct{ Network, Service, Engine string }
	Cases     []struct {
		PaymentsPerSec float64 `json:"payments_per_sec"`
		Succeeded      int     `json:"succeeded"`
	} `json:"cases"`
}

func readSwarmSummary(t *testing.T, dir string) swarmSummary {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s swarmSummary
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	return s
}

// TestSwarmAlicePaysBobViaCarol runs AlicePaysBobViaCarol on a swarm of
// three engines with alice, carol1 and bob each on its own engine (pinned
// by node label and by hostname), checks the payments crossed the engines
// through carol1, that the report and artifacts say which engine ran each
// actor and that nothing is left on any engine or on the host; then runs
// the same scenario on one engine (compose) and logs payments/s of both,
// their ratio, image distribution time and swarm setup time. Both runs
// sample each iteration: the swarm run's samplers (one per engine) are
// checked as compose's sidecar is.
func TestSwarmAlicePaysBobViaCarol(t *testing.T) {
	bin := composeSetup(t)
	engines, setup := testbedUp(t, 3)

	dir := t.TempDir()
	topo := filepath.Join(dir, "topology.yml")
	if err := os.WriteFile(topo, []byte(`name: AliceCarolBobAcrossEngines
nodes:
  - {name: alice, placement: "lnbench.engine=lnbe-1"}
  - {name: carol1, placement: lnbe-2}
  - {name: bob, placement: lnbe-3}
channels:
  - {from: alice, to: carol1}
  - {from: carol1, to: bob}
payers: [alice]
payee: bob
`), 0o644); err != nil {
		t.Fatal(err)
	}
	const total, iterations = 100, 3
	scen := composeScenarioFile(t, fmt.Sprintf(`name: %s
topology: %s
params: {Concurrency: [10], TotalPayments: [%d]}
job: {WarmupCount: 1, IterationCount: %d}
sampling: {mode: iteration}
`, composeUniqueName("Swarm"), topo, total, iterations))

	arts, tmp := t.TempDir(), t.TempDir()
	env := []string{"TMPDIR=" + tmp}
	start := time.Now()
	out, err := lnbenchRun(t, bin, 10*time.Minute, env, "run", scen, "--backend", "swarm", "--swarm-engines", engines, "--artifacts", arts, "--reuse-network")
	swarmWall := time.Since(start)
	t.Logf("lnbench run --backend swarm (%v):\n%s", swarmWall.Round(time.Second), out)
	swarmOut := out
	run := onlyRunDir(t, arts)
	runID := filepath.Base(run)
	c, cerr := swarm.Check(context.Background(), mustEngines(t, engines))
	t.Cleanup(func() {
		// Whatever happened, nothing of the run may stay on an engine.
		if cerr == nil {
			if left, err := swarm.Leftovers(context.Background(), c, "label=lnbench.run="+runID); err != nil || len(left) > 0 {
				t.Errorf("left on the engines after the run: %v %v", left, err)
				swarm.Down(context.Background(), c, runID, os.Stderr)
			}
		}
	})
	if err != nil {
		t.Fatalf("swarm run: %v", err)
	}
	if cerr != nil {
		t.Fatal(cerr)
	}

	sum := readSwarmSummary(t, run)
	if sum.Backend != "swarm" || sum.RunID != runID {
		t.Errorf("summary: backend %q run %q", sum.Backend, sum.RunID)
	}
	where := map[string]string{}
	for _, p := range sum.Placement {
		where[p.Service] = p.Engine
	}
	if where["alice"] != "lnbe-1" || where["carol1"] != "lnbe-2" || where["bob"] != "lnbe-3" {
		t.Errorf("placement in summary.json: %v; want alice lnbe-1, carol1 lnbe-2, bob lnbe-3", where)
	}
	for svc, eng := range map[string]string{"alice": "lnbe-1", "carol1": "lnbe-2", "bob": "lnbe-3"} {
		matches, _ := filepath.Glob(filepath.Join(run, "nodes", "*", svc, "engine.txt"))
		if len(matches) != 1 {
			t.Errorf("%s: no engine.txt in the artifacts", svc)
			continue
		}
		data, _ := os.ReadFile(matches[0])
		if !strings.HasPrefix(string(data), eng+" ") {
			t.Errorf("%s ran on %q, want %s", svc, data, eng)
		}
		if logs, _ := filepath.Glob(filepath.Join(filepath.Dir(matches[0]), "lnd.log")); len(logs) != 1 {
			t.Errorf("%s: lnd.log not copied out of its container", svc)
		}
	}
	md, _ := os.ReadFile(filepath.Join(run, "summary.md"))
	if !strings.Contains(string(md), "## Engines") {
		t.Errorf("summary.md has no Engines section")
	}
	if _, err := os.Stat(filepath.Join(run, "stack.yml")); err != nil {
		t.Errorf("no stack file in the artifacts: %v", err)
	}
	// A sampler per engine, as compose's sidecar (both runs sample, so the
	// ratio below compares like with like).
	checkSwarmProfiling(t, run, iterations)
	recs := measured(t, run)
	n := 0
	for _, rs := range recs {
		for _, r := range rs {
			n++
			if r.Status != result.Succeeded || r.Hops != 2 {
				t.Fatalf("payment did not succeed across carol1: %+v", r)
			}
		}
	}
	if n != total*iterations {
		t.Fatalf("%d measured payments, want %d", n, total*iterations)
	}
	fw := 0
	for _, f := range sum.Forwards {
		if f.Node == "carol1" {
			fw += f.Count
		}
	}
	if fw < n {
		t.Errorf("carol1 forwarded %d HTLCs, want ≥ %d", fw, n)
	}
	// Node data dirs (keys, macaroons) copied to the harness are removed.
	if entries, _ := os.ReadDir(filepath.Join(tmp, "lnbench")); len(entries) > 0 {
		t.Errorf("node work dirs left under %s", tmp)
	}
	if out, err := lnbenchRun(t, bin, 2*time.Minute, nil, "down", "--backend", "swarm", "--swarm-engines", engines, runID); err != nil || !strings.Contains(out, "removed 0 service(s), 0 container(s)") {
		t.Errorf("lnbench down after a clean run: %v\n%s", err, out)
	}

	// The same scenario on one engine.
	cArts := t.TempDir()
	out, err = lnbenchRun(t, bin, 10*time.Minute, []string{"TMPDIR=" + t.TempDir()}, "run", scen, "--backend", "compose", "--artifacts", cArts, "--reuse-network")
	if err != nil {
		t.Fatalf("compose run: %v\n%s", err, out)
	}
	one := readSwarmSummary(t, onlyRunDir(t, cArts))
	if len(one.Cases) != 1 || len(sum.Cases) != 1 {
		t.Fatalf("cases: swarm %d, compose %d", len(sum.Cases), len(one.Cases))
	}
	dist := regexp.MustCompile(`swarm: \d+ image\(s\) on 3 engine\(s\) \(manager \S+\) in ([0-9.]+)s`).FindStringSubmatch(swarmOut)
	if dist == nil {
		t.Fatalf("the swarm run did not say how long image distribution took")
	}
	t.Logf("MEASURED swarm setup (testbed up 3): %.1fs; image distribution: %s s; payments/s across 3 engines %.1f, on one engine (compose) %.1f, ratio %.2f",
		setup.Seconds(), strings.Join(dist[1:], ""), sum.Cases[0].PaymentsPerSec, one.Cases[0].PaymentsPerSec, sum.Cases[0].PaymentsPerSec/one.Cases[0].PaymentsPerSec)
}

func mustEngines(t *testing.T, path string) []swarm.Engine {
	t.Helper()
	es, err := swarm.ReadEngines(path)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// TestSwarmEngineLost stops bob's engine mid-run (its dockerd, SIGTERM,
// as a host going down) and checks that the run's error names the lost
// engine within 30 s; that the teardown says what it does, ends in bounded
// time and lists what it left where (bob's container and volumes on
// lnbe-3), and the run exits non-zero; that what was measured is in the
// artifacts and nothing of the run stays on the engines that answer. Then
// `lnbench down` removes what it reaches (a volume left on lnbe-2 on
// purpose) and fails naming lnbe-3; once lnbe-3's dockerd runs again, the
// same down removes the rest. carol1 carries its own cpus and memory
// (topology), checked on its container (issue 19).
func TestSwarmEngineLost(t *testing.T) {
	bin := composeSetup(t)
	engines, _ := testbedUp(t, 3)
	es := mustEngines(t, engines)
	state := filepath.Dir(engines)
	topo := filepath.Join(t.TempDir(), "topology.yml")
	if err := os.WriteFile(topo, []byte(`name: LostEngine
nodes:
  - {name: alice, placement: lnbe-1}
  - {name: carol1, placement: lnbe-2, cpus: 0.8, memory: 700m}
  - {name: bob, placement: lnbe-3}
channels: [{from: alice, to: carol1}, {from: carol1, to: bob}]
payers: [alice]
payee: bob
`), 0o644); err != nil {
		t.Fatal(err)
	}
	scen := composeScenarioFile(t, fmt.Sprintf("name: %s\ntopology: %s\nparams: {Concurrency: [5], TotalPayments: [20000]}\njob: {WarmupCount: 0, IterationCount: 1}\n",
		composeUniqueName("SwarmLost"), topo))
	arts := t.TempDir()
	cmd := exec.Command(bin, "run", scen, "--backend", "swarm", "--swarm-engines", engines, "--artifacts", arts)
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	out := &composeOutput{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	// Wait for measured payments, then stop bob's engine.
	deadline := time.Now().Add(8 * time.Minute)
	for {
		if time.Now().After(deadline) {
			t.Fatalf("no payments after 8 minutes:\n%s", out.String())
		}
		select {
		case err := <-done:
			t.Fatalf("run ended before the engine was stopped: %v\n%s", err, out.String())
		default:
		}
		if m, _ := filepath.Glob(filepath.Join(arts, "*", "payments.jsonl")); len(m) == 1 {
			if data, _ := os.ReadFile(m[0]); bytes.Count(data, []byte("\n")) >= 50 {
				break
			}
		}
		time.Sleep(time.Second)
	}
	run := onlyRunDir(t, arts)
	runID := filepath.Base(run)
	label := "label=lnbench.run=" + runID

	// carol1's own limits reached its container on lnbe-2.
	if ps, err := exec.Command("docker", "-H", es[1].Host, "ps", "--filter", label, "--format", `{{.ID}} {{.Label "com.docker.swarm.service.name"}}`).Output(); err != nil {
		t.Errorf("docker ps on lnbe-2: %v", err)
	} else {
		id := ""
		for _, line := range strings.Split(string(ps), "\n") {
			if f := strings.Fields(line); len(f) == 2 && strings.HasSuffix(f[1], "_carol1") {
				id = f[0]
			}
		}
		hc, err := exec.Command("docker", "-H", es[1].Host, "inspect", "--format", "{{.HostConfig.Memory}} {{.HostConfig.NanoCpus}}", id).Output()
		if got := strings.TrimSpace(string(hc)); err != nil || got != fmt.Sprintf("%d %d", 700<<20, 800_000_000) {
			t.Errorf("carol1's container (%q on lnbe-2): memory and nano CPUs %q (%v), want 700 MiB and 0.8 CPUs from the topology", id, got, err)
		}
	}

	pidText, err := os.ReadFile(filepath.Join(state, "lnbe-3", "docker.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(pidText)))
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || pid == 0 {
		t.Fatalf("lnbe-3's dockerd (pid %q): %v", pidText, err)
	}
	stopped := time.Now()
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatalf("stopping lnbe-3's dockerd: %v", err)
	}
	var named time.Duration
	var runErr error
	ended := false
	for limit := time.After(5 * time.Minute); !ended; {
		select {
		case runErr = <-done:
			ended = true
		case <-limit:
			t.Fatalf("the run did not end within 5 minutes of losing an engine:\n%s", out.String())
		case <-time.After(200 * time.Millisecond):
		}
		// The watch names it once the manager marks the node down; a run
		// whose payments all failed first ends sooner, and its teardown
		// names the engine that does not answer.
		if o := out.String(); named == 0 && (strings.Contains(o, "swarm node lnbe-3 is") || strings.Contains(o, "engine lnbe-3 (") && strings.Contains(o, "does not answer")) {
			named = time.Since(stopped)
		}
	}
	took := time.Since(stopped)
	t.Logf("run output:\n%s", out.String())
	t.Logf("MEASURED engine lnbe-3 stopped: the run named it after %.1f s and ended after %.1f s (%v)", named.Seconds(), took.Seconds(), runErr)
	if runErr == nil {
		t.Error("the run succeeded with an engine lost")
	}
	if named == 0 || named > 30*time.Second {
		t.Errorf("the run named the lost engine lnbe-3 after %v, want within 30 s", named)
	}
	if took-named > 3*time.Minute {
		t.Errorf("teardown took %v after the error", took-named)
	}
	text := out.String()
	for _, want := range []string{"swarm: tearing down stack", "swarm: engine lnbe-3 (" + es[2].Host + ") does not answer",
		"the containers and volumes of bob (lnbench.run=" + runID + " and lnbench.network=",
		"remove the rest with `lnbench down --backend swarm " + runID + "` once lnbe-3 answers again"} {
		if !strings.Contains(text, want) {
			t.Errorf("the run's output lacks %q", want)
		}
	}
	if recs, err := result.ReadFile(filepath.Join(run, "payments.jsonl")); err != nil || len(recs) < 50 {
		t.Errorf("payments.jsonl after the loss: %d records, %v", len(recs), err)
	}
	// Each engine's actors were sampled (the test bed's engines share this
	// host's PID namespace: their cgroups are read here).
	if samples, err := usage.Load(filepath.Join(run, usage.FileName)); err != nil {
		t.Errorf("resources: %v", err)
	} else {
		cpu, source := map[string]float64{}, map[string]string{}
		for _, s := range samples {
			cpu[s.Actor] = max(cpu[s.Actor], s.CPUSeconds())
			source[s.Actor] = s.Source
		}
		t.Logf("MEASURED resource samples: CPU seconds %v, sources %v", cpu, source)
		for _, a := range []string{"alice", "carol1", "bob", "btcd", usage.RoleHost} {
			if cpu[a] <= 0 {
				t.Errorf("%s: no CPU sampled on the swarm (%d samples in all)", a, len(samples))
			}
		}
	}
	if md, err := os.ReadFile(filepath.Join(run, "summary.md")); err != nil || !strings.Contains(string(md), "the containers and volumes of bob") {
		t.Errorf("summary.md does not say what the teardown left (%v)", err)
	}
	reachable := swarm.Cluster{Engines: es[:2], Manager: es[0]}
	if left, err := swarm.Leftovers(context.Background(), reachable, label); err != nil || len(left) > 0 {
		t.Errorf("left on the engines that answer: %v %v", left, err)
	}

	// down removes what it reaches and names the engine it cannot.
	if b, err := exec.Command("docker", "-H", es[1].Host, "volume", "create", "--label", "lnbench.run="+runID, "lnbench-e2e-leftover").CombinedOutput(); err != nil {
		t.Fatalf("volume create on lnbe-2: %v %s", err, b)
	}
	start := time.Now()
	downOut, err := lnbenchRun(t, bin, 3*time.Minute, nil, "down", "--backend", "swarm", "--swarm-engines", engines, runID)
	t.Logf("MEASURED lnbench down with lnbe-3 stopped (%.1f s, %v):\n%s", time.Since(start).Seconds(), err, downOut)
	if err == nil {
		t.Error("down succeeded with an engine that does not answer")
	}
	for _, want := range []string{"swarm of lnbe-1, lnbe-2: removed 0 service(s), 0 container(s), 0 network(s), 1 volume(s)",
		"engine lnbe-3 (" + es[2].Host + ") does not answer", "whatever carries lnbench.run=" + runID + " there (containers, networks, volumes) stays",
		"again once lnbe-3 answers"} {
		if !strings.Contains(downOut, want) {
			t.Errorf("down's output lacks %q", want)
		}
	}
	if left, err := swarm.Leftovers(context.Background(), reachable, label); err != nil || len(left) > 0 {
		t.Errorf("left on the engines that answer after down: %v %v", left, err)
	}

	// lnbe-3 comes back (the same dockerd command line, in its namespace):
	// the same down removes what stayed there.
	args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	logf, err := os.OpenFile(filepath.Join(state, "lnbe-3", "dockerd.log"), os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	again := exec.Command("nsenter", append([]string{"--net=/var/run/netns/lnbe-3", "unshare", "--uts", "sh", "-c", `hostname "$0" && exec "$@"`, "lnbe-3"}, args...)...)
	again.Stdout, again.Stderr = logf, logf
	again.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := again.Start(); err != nil {
		t.Fatalf("starting lnbe-3's dockerd again: %v", err)
	}
	go again.Wait() // testbed down stops it by its pidfile
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		if exec.Command("docker", "-H", es[2].Host, "version").Run() == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("lnbe-3's dockerd did not answer again within 90 s")
		}
	}
	back := swarm.Cluster{Engines: es[2:], Manager: es[0]}
	stayed, _ := swarm.Leftovers(context.Background(), back, label)
	t.Logf("on lnbe-3 once it answers again: %v", stayed)
	downOut, err = lnbenchRun(t, bin, 3*time.Minute, nil, "down", "--backend", "swarm", "--swarm-engines", engines, runID)
	t.Logf("lnbench down with lnbe-3 back (%v):\n%s", err, downOut)
	if err != nil {
		t.Errorf("down once every engine answers: %v", err)
	}
	if left, err := swarm.Leftovers(context.Background(), swarm.Cluster{Engines: es, Manager: es[0]}, label); err != nil || len(left) > 0 {
		t.Errorf("left after the second down: %v %v", left, err)
	}
}
