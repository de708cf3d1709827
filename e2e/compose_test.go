//go:build e2e

package e2e

// End-to-end tests of the compose backend: the real CLI (static, so it also
// runs inside the containers) drives real Docker, btcd and LND. They skip
// only when `docker info` fails. Every run gets a unique scenario name (so a
// unique run id, hence unique labels and compose project, even when someone
// else runs these tests on the same engine), and every cleanup is by that
// run id only.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/record/traces"
)

// composeRunLabel is on every container, network and volume of a compose
// run, with the run id (the artifacts folder's name) as value.
const composeRunLabel = backend.Label

// composeNeedDocker needs a Docker engine (skips, or fails in CI).
func composeNeedDocker(t *testing.T) {
	t.Helper()
	testsupport.RequireDocker(t)
}

var (
	composeImagesOnce sync.Once
	composeImagesErr  error
)

// composeSetup skips without Docker, checks the node binaries are cached,
// builds the static CLI and makes sure the images exist (`lnbench images`
// is a no-op when they do), so run timeouts never include an image build.
func composeSetup(t *testing.T) string {
	t.Helper()
	composeNeedDocker(t)
	binaries(t)
	bin := buildCLI(t)
	composeImagesOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "images")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			composeImagesErr = fmt.Errorf("lnbench images: %v\n%s", err, out)
		}
	})
	if composeImagesErr != nil {
		t.Fatal(composeImagesErr)
	}
	return bin
}

// composeUniqueName is a scenario name no other run on this engine will share.
func composeUniqueName(prefix string) string {
	b := make([]byte, 4)
	rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}

// composeScenarioFile writes a scenario file into a temporary folder.
func composeScenarioFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scenario.yml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// composeOutput collects a process's output while the test reads it.
type composeOutput struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *composeOutput) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *composeOutput) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// composeRun is one `lnbench run --backend compose` process. Its cleanup
// interrupts the process if it still runs, then removes whatever still
// carries its run id's label (and nothing else).
type composeRun struct {
	t    *testing.T
	cmd  *exec.Cmd
	out  *composeOutput
	arts string // --artifacts root: receives exactly one run folder
	tmp  string // TMPDIR: node work dirs go to <tmp>/lnbench/<run id>
	done chan error
	err  error
	over bool
}

func startCompose(t *testing.T, bin, scen string, extra ...string) *composeRun {
	t.Helper()
	r := &composeRun{t: t, out: &composeOutput{}, arts: artifactsDir(t), tmp: t.TempDir(), done: make(chan error, 1)}
	args := append([]string{"run", scen, "--backend", "compose", "--artifacts", r.arts}, extra...)
	r.cmd = exec.Command(bin, args...)
	r.cmd.Dir = repoRoot(t)
	r.cmd.Env = append(os.Environ(), "TMPDIR="+r.tmp)
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.done <- r.cmd.Wait() }()
	t.Cleanup(r.cleanup)
	return r
}

// wait waits up to d for the process to exit (its error is then r.err);
// false on timeout.
func (r *composeRun) wait(d time.Duration) bool {
	if r.over {
		return true
	}
	if d <= 0 {
		select {
		case r.err = <-r.done:
			r.over = true
			return true
		default:
			return false
		}
	}
	select {
	case r.err = <-r.done:
		r.over = true
		return true
	case <-time.After(d):
		return false
	}
}

func (r *composeRun) exited() bool { return r.wait(0) }

// finish waits for a run expected to succeed.
func (r *composeRun) finish(d time.Duration) {
	r.t.Helper()
	if !r.wait(d) {
		r.t.Fatalf("lnbench run did not finish within %v; output so far:\n%s", d, r.out.String())
	}
	if r.err != nil {
		r.t.Fatalf("lnbench run: %v\n%s", r.err, r.out.String())
	}
}

// dir is the run's artifacts folder ("" before it exists); its base name
// is the run id.
func (r *composeRun) dir() string {
	m, _ := filepath.Glob(filepath.Join(r.arts, "*"))
	if len(m) != 1 {
		return ""
	}
	return m[0]
}

func (r *composeRun) runID() string {
	d := r.dir()
	if d == "" {
		return ""
	}
	return filepath.Base(d)
}

func (r *composeRun) cleanup() {
	if !r.exited() {
		r.cmd.Process.Signal(syscall.SIGINT)
		if !r.wait(90 * time.Second) {
			r.cmd.Process.Kill()
			r.wait(10 * time.Second)
		}
	}
	if id := r.runID(); id != "" {
		if removed := composeRemoveRun(id); len(removed) > 0 {
			r.t.Logf("cleanup removed what run %s left: %v", id, removed)
		}
	}
}

// waitPayments waits until the run's payments.jsonl holds at least n records.
func (r *composeRun) waitPayments(n int, d time.Duration) string {
	r.t.Helper()
	var dir string
	recorded := poll(d, 200*time.Millisecond, func() bool {
		if dir = r.dir(); dir != "" {
			if recs, _ := result.ReadFile(filepath.Join(dir, "payments.jsonl")); len(recs) >= n {
				return true
			}
		}
		if r.exited() {
			r.t.Fatalf("lnbench exited (%v) before %d payments were recorded:\n%s", r.err, n, r.out.String())
		}
		return false
	})
	if !recorded {
		r.t.Fatalf("fewer than %d payments recorded within %v; output so far:\n%s", n, d, r.out.String())
	}
	return dir
}

// interrupt sends SIGINT and expects a non-zero exit within 90 s.
func (r *composeRun) interrupt() {
	r.t.Helper()
	r.cmd.Process.Signal(syscall.SIGINT)
	if !r.wait(90 * time.Second) {
		r.cmd.Process.Kill()
		r.t.Fatalf("lnbench did not exit within 90 s of SIGINT; output:\n%s", r.out.String())
	}
	if r.err == nil {
		r.t.Fatalf("exit 0 after SIGINT; want non-zero. Output:\n%s", r.out.String())
	}
}

// composeDockerList runs a docker listing command and returns the ids it printed.
func composeDockerList(args ...string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", args...).Output()
	if err != nil {
		return nil, fmt.Errorf("docker %s: %v", strings.Join(args, " "), err)
	}
	return strings.Fields(string(out)), nil
}

// composeRunObjects lists the containers, networks and volumes labelled with the
// run id, as "container <id>" lines.
func composeRunObjects(runID string) ([]string, error) {
	if runID == "" {
		return nil, fmt.Errorf("empty run id")
	}
	filter := "label=" + composeRunLabel + "=" + runID
	var out []string
	for _, k := range [][]string{{"container", "ps", "-aq"}, {"network", "network", "ls", "-q"}, {"volume", "volume", "ls", "-q"}} {
		ids, err := composeDockerList(append(k[1:], "--filter", filter)...)
		if err != nil {
			return out, err
		}
		for _, id := range ids {
			out = append(out, k[0]+" "+id)
		}
	}
	return out, nil
}

// composeRemoveRun removes what carries this run's label, and only that:
// containers first, then the networks and volumes they used.
func composeRemoveRun(runID string) []string {
	left, _ := composeRunObjects(runID)
	if len(left) == 0 {
		return nil
	}
	filter := "label=" + composeRunLabel + "=" + runID
	for _, k := range []struct{ list, rm []string }{
		{[]string{"ps", "-aq"}, []string{"rm", "-f", "-v"}},
		{[]string{"network", "ls", "-q"}, []string{"network", "rm"}},
		{[]string{"volume", "ls", "-q"}, []string{"volume", "rm", "-f"}},
	} {
		if ids, err := composeDockerList(append(k.list, "--filter", filter)...); err == nil && len(ids) > 0 {
			exec.Command("docker", append(k.rm, ids...)...).Run()
		}
	}
	return left
}

// checkNothingLeft fails if Docker still holds anything of the run, or its
// work folder (node keys, macaroons) is still on disk.
func (r *composeRun) checkNothingLeft() {
	r.t.Helper()
	id := r.runID()
	left, err := composeRunObjects(id)
	if err != nil {
		r.t.Fatal(err)
	}
	if len(left) > 0 {
		r.t.Errorf("run %s left labelled %s=%s: %v\noutput:\n%s", id, composeRunLabel, id, left, r.out.String())
	}
	if entries, _ := os.ReadDir(filepath.Join(r.tmp, "lnbench")); len(entries) > 0 {
		r.t.Errorf("work folder with node keys left behind: %v", entries)
	}
}

// composeService is the part of a compose file the tests read. Ports are
// strings in the short syntax, maps in the long one (`docker compose config`).
type composeService struct {
	Ports  []any             `yaml:"ports"`
	Labels map[string]string `yaml:"labels"`
}

type composeFile struct {
	Services map[string]composeService `yaml:"services"`
	Networks map[string]struct {
		Labels map[string]string `yaml:"labels"`
	} `yaml:"networks"`
}

// portStrings renders each published port; loopback is "127.0.0.1:…".
func (s composeService) portStrings() []string {
	var out []string
	for _, p := range s.Ports {
		switch v := p.(type) {
		case string:
			out = append(out, v)
		case map[string]any:
			out = append(out, fmt.Sprintf("%v:%v:%v", v["host_ip"], v["published"], v["target"]))
		default:
			out = append(out, fmt.Sprint(v))
		}
	}
	return out
}

func composeTool() []string {
	if _, err := exec.LookPath("docker-compose"); err == nil {
		return []string{"docker-compose"}
	}
	return []string{"docker", "compose"}
}

// checkComposeFile checks the run's generated compose file: present,
// accepted by `docker-compose config`, every service and the network
// labelled with the run id, every published port on 127.0.0.1.
func checkComposeFile(t *testing.T, dir string) composeFile {
	t.Helper()
	runID := filepath.Base(dir)
	path := filepath.Join(dir, "docker-compose.yml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no compose file in the artifacts: %v", err)
	}
	var f composeFile
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tool := composeTool()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := exec.CommandContext(ctx, tool[0], append(tool[1:], "-f", path, "config")...)
	var stderr bytes.Buffer
	cfg.Stderr = &stderr
	normalized, err := cfg.Output()
	if err != nil {
		t.Fatalf("%s -f %s config rejects the file: %v\n%s", strings.Join(tool, " "), path, err, stderr.String())
	}
	var nf composeFile
	if err := yaml.Unmarshal(normalized, &nf); err != nil {
		t.Fatalf("config output: %v\n%s", err, normalized)
	}
	if len(f.Services) < 3 || len(nf.Services) != len(f.Services) {
		t.Fatalf("services: file %d, config %d", len(f.Services), len(nf.Services))
	}
	for what, file := range map[string]composeFile{"file": f, "config": nf} {
		for name, svc := range file.Services {
			ports := svc.portStrings()
			if len(ports) == 0 {
				t.Errorf("%s: service %s publishes nothing (the harness needs its port)", what, name)
			}
			for _, p := range ports {
				if !strings.HasPrefix(p, "127.0.0.1:") {
					t.Errorf("%s: service %s publishes %q beyond loopback", what, name, p)
				}
			}
		}
	}
	for name, svc := range f.Services {
		if svc.Labels[composeRunLabel] != runID {
			t.Errorf("service %s labelled %s=%q, want the run id %q", name, composeRunLabel, svc.Labels[composeRunLabel], runID)
		}
	}
	for name, n := range f.Networks {
		if n.Labels[composeRunLabel] != runID {
			t.Errorf("network %s labelled %s=%q, want %q", name, composeRunLabel, n.Labels[composeRunLabel], runID)
		}
	}
	return f
}

// composeSummary reads the parts of summary.json the tests check.
func composeSummary(t *testing.T, dir string) (runID, backendName string, forwards map[string]int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		RunID    string           `json:"run_id"`
		Backend  string           `json:"backend"`
		Forwards []record.Forward `json:"forwards"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	forwards = map[string]int{}
	for _, f := range s.Forwards {
		forwards[f.Node] += f.Count
	}
	return s.RunID, s.Backend, forwards
}

// TestComposeTopologies runs each built-in topology once in containers and
// checks the payments really took the topology's routes, the generated
// compose file, and that nothing of the run is left in Docker. The
// AlicePaysBob run is also profiled per iteration through the sampler
// sidecar (a run of its own cost a compose network more).
func TestComposeTopologies(t *testing.T) {
	bin := composeSetup(t)
	cases := []struct {
		topology, params string
		check            func(t *testing.T, recs []result.Record, forwards map[string]int)
		// Optional: payments per iteration (default 20), a warm-up and two
		// iterations, more scenario lines, and checks on the folder.
		total  int
		warmup bool
		extra  string
		after  func(t *testing.T, r *composeRun, dir string)
	}{
		{topology: "AlicePaysBob", check: func(t *testing.T, recs []result.Record, _ map[string]int) {
			for _, r := range recs {
				if r.Payer != "alice" || r.Hops != 1 {
					t.Fatalf("not a direct alice→bob payment: %+v", r)
				}
			}
		}, total: 80, warmup: true, extra: "sampling: {mode: iteration}\n", after: checkSidecarIterationSampling},
		{topology: "AlicePaysBobViaCarol", params: ", CarolsCount: [1]", check: func(t *testing.T, recs []result.Record, forwards map[string]int) {
			for _, r := range recs {
				if r.Hops != 2 {
					t.Fatalf("payment did not cross carol1: %+v", r)
				}
			}
			if forwards["carol1"] < len(recs) {
				t.Errorf("carol1 forwarded %d HTLCs, want ≥ %d measured payments; forwards %v", forwards["carol1"], len(recs), forwards)
			}
		}},
		{topology: "AlicesPayBob", params: ", AliceCount: [2]", check: func(t *testing.T, recs []result.Record, _ map[string]int) {
			payers := map[string]int{}
			for _, r := range recs {
				payers[r.Payer]++
			}
			if payers["alice1"] == 0 || payers["alice2"] == 0 || len(payers) != 2 {
				t.Errorf("payments by payer %v; want both alice1 and alice2", payers)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.topology, func(t *testing.T) {
			start := time.Now()
			total, warmup, iters := 20, 0, 1
			if c.total > 0 {
				total = c.total
			}
			if c.warmup {
				warmup, iters = 1, 2
			}
			scen := composeScenarioFile(t, fmt.Sprintf(`name: %s
topology: %s
params: {Concurrency: [5], TotalPayments: [%d]%s}
job: {WarmupCount: %d, IterationCount: %d}
%s`, composeUniqueName("Cmp"+c.topology), c.topology, total, c.params, warmup, iters, c.extra))
			r := startCompose(t, bin, scen, "--reuse-network")
			r.finish(5 * time.Minute)
			dir := r.dir()
			if dir == "" {
				t.Fatalf("no artifacts folder in %s", r.arts)
			}
			id, be, forwards := composeSummary(t, dir)
			if id != filepath.Base(dir) || be != "compose" {
				t.Errorf("summary.json: run_id %q backend %q; want %q, compose", id, be, filepath.Base(dir))
			}
			recs := measured(t, dir)
			if len(recs) != 1 {
				t.Fatalf("cases measured: %v", len(recs))
			}
			for _, rs := range recs {
				if len(rs) != total*iters {
					t.Fatalf("%d measured payments, want %d", len(rs), total*iters)
				}
				for _, rec := range rs {
					if rec.Status != result.Succeeded {
						t.Fatalf("failed payment: %+v", rec)
					}
				}
				c.check(t, rs, forwards)
			}
			checkComposeFile(t, dir)
			if c.after != nil {
				c.after(t, r, dir)
			}
			r.checkNothingLeft()
			t.Logf("%s in %v", c.topology, time.Since(start).Round(time.Second))
		})
	}
}

// composeLongJob is a scenario that measures long enough to be interrupted
// (LND pays ~35/s here, so 1000 payments take about half a minute).
func composeLongJob(name string, total int, extra string) string {
	return fmt.Sprintf(`name: %s
topology: AlicePaysBob
params: {Concurrency: [4], TotalPayments: [%d]}
job: {WarmupCount: 0, IterationCount: 1}
%s`, composeUniqueName(name), total, extra)
}

// TestComposeInterruptLeavesNothing interrupts a compose run mid-measurement:
// non-zero exit, every container, network and volume of the run gone, the
// measured payments and the summary kept. Before the interrupt, the same
// run serves the sample-loop.sh check (a network of its own cost a minute).
func TestComposeInterruptLeavesNothing(t *testing.T) {
	bin := composeSetup(t)
	r := startCompose(t, bin, composeScenarioFile(t, composeLongJob("CmpInterrupt", 3000, "")))
	dir := r.waitPayments(20, 5*time.Minute)
	objs, err := composeRunObjects(r.runID())
	if err != nil {
		t.Fatal(err)
	}
	var containers int
	for _, o := range objs {
		if strings.HasPrefix(o, "container ") {
			containers++
		}
	}
	if containers < 3 {
		t.Fatalf("expected btcd, alice and bob containers labelled with the run id, found %v", objs)
	}
	t.Run("SampleLoopViaDockerExec", func(t *testing.T) {
		sampleLoopViaDockerExec(t, r, dir, "alice", "github.com/lightningnetwork/lnd/")
	})
	r.interrupt()
	r.checkNothingLeft()
	recs, err := result.ReadFile(filepath.Join(dir, "payments.jsonl"))
	if err != nil || len(recs) < 20 {
		t.Fatalf("measured payments lost: %d records, %v", len(recs), err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil || !strings.Contains(string(md), "run ended early") {
		t.Fatalf("summary of the interrupted run missing or unmarked: %v\n%s", err, md)
	}
	if !strings.Contains(r.out.String(), "interrupted") {
		t.Errorf("no interruption message:\n%s", r.out.String())
	}
}

// composeServiceContainer finds the container of a compose service of a run.
func composeServiceContainer(t *testing.T, runID, service string) string {
	t.Helper()
	ids, err := composeDockerList("ps", "-q", "--filter", "label="+composeRunLabel+"="+runID, "--filter", "label=com.docker.compose.service="+service)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 {
		t.Fatalf("run %s: %d running %s containers: %v", runID, len(ids), service, ids)
	}
	return ids[0]
}

// sampleLoopViaDockerExec runs the original's profiling loop by hand in
// an actor's container of a running compose run, as the README of
// docker-fragments/scripts says: `docker exec <alice> sample-loop.sh 3 2`,
// and expects flame graphs holding marker (the node's own code) in
// <artifacts>/<actor>_traces/.
//
// sample-loop.sh profiles 127.0.0.1:6060 inside the container: compose runs
// always open the node's pprof endpoint inside the network (never
// published): lnd's own, or for Core Lightning lnbench perfserve's.
func sampleLoopViaDockerExec(t *testing.T, r *composeRun, dir, actor, marker string) {
	container := composeServiceContainer(t, r.runID(), actor)

	// bash prints its pid in the container, then becomes sample-loop.sh,
	// which becomes `lnbench sampler`: killing the docker exec client would
	// not stop it, a signal to that pid does.
	// The pid goes out tagged: docker exec copies stdout and stderr in
	// goroutines of their own, so the loop's first stderr line can come
	// before it (CI read "sampling bob …" as the pid).
	loop := exec.Command("docker", "exec", container, "bash", "-c", `echo "loop-pid=$$"; exec sample-loop.sh 3 2`)
	loopOut := &composeOutput{}
	loop.Stdout, loop.Stderr = loopOut, loopOut
	if err := loop.Start(); err != nil {
		t.Fatal(err)
	}
	loopDone := make(chan error, 1)
	go func() { loopDone <- loop.Wait() }()
	loopExited := false
	defer func() {
		if !loopExited {
			loop.Process.Kill()
			<-loopDone
		}
	}()

	actorTraces := filepath.Join(dir, traces.Dir(actor))
	var svg string
	deadline := time.Now().Add(60 * time.Second)
	for svg == "" && time.Now().Before(deadline) {
		m, _ := filepath.Glob(filepath.Join(actorTraces, "*.svg"))
		for _, f := range m {
			if data, err := os.ReadFile(f); err == nil && strings.Contains(string(data), marker) {
				svg = f
			}
		}
		select {
		case err := <-loopDone:
			loopExited = true
			t.Fatalf("sample-loop.sh exited: %v\n%s", err, loopOut.String())
		case <-time.After(500 * time.Millisecond):
		}
	}
	if svg == "" {
		t.Fatalf("no flame graph holding %q in %s within 60 s; sample-loop.sh said:\n%s", marker, actorTraces, loopOut.String())
	}
	t.Logf("sample-loop.sh wrote %s", filepath.Base(svg))
	if !strings.Contains(loopOut.String(), "sampling "+actor) {
		t.Errorf("sample-loop.sh did not name the actor from LNBENCH_ACTOR:\n%s", loopOut.String())
	}

	// Stop the loop inside the container; the docker exec ends with it.
	pid := loopPid(loopOut.String())
	if pid == "" {
		t.Fatalf("no loop-pid= line from the docker exec:\n%s", loopOut.String())
	}
	if out, err := exec.Command("docker", "exec", container, "kill", "-INT", pid).CombinedOutput(); err != nil {
		t.Errorf("stopping sample-loop.sh (pid %q): %v %s", pid, err, out)
	}
	select {
	case <-loopDone:
		loopExited = true
	case <-time.After(20 * time.Second):
		t.Errorf("docker exec sample-loop.sh still running 20 s after SIGINT to the loop:\n%s", loopOut.String())
	}
}

// loopPid: the pid sampleLoopViaDockerExec's bash printed as loop-pid=N,
// wherever among the loop's lines it landed.
func loopPid(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if pid, ok := strings.CutPrefix(strings.TrimSpace(line), "loop-pid="); ok {
			return pid
		}
	}
	return ""
}

// checkSidecarIterationSampling: a run profiled per measured iteration
// (sampling: {mode: iteration}, a warm-up, two iterations) through the
// sampler sidecar (pprof is reachable only inside the compose network) has
// windows that render LND's own packages, each recording its iteration,
// and only the sidecar's control port is published.
func checkSidecarIterationSampling(t *testing.T, r *composeRun, dir string) {
	ws, err := traces.ReadIndex(dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, r.out.String())
	}
	// 2 measured iterations × 2 actors; the warm-up is not sampled.
	checkWindows(t, dir, ws)
	got := map[string]int{}
	for _, w := range ws {
		got[w.Actor]++
		if a, ok := w.Alignment(); !ok || a.Covered < 0.5 {
			t.Errorf("window %s of %s: iteration %v, alignment %+v", w.Label, w.Actor, w.Want, a)
		} else {
			t.Logf("%s %s: %s", w.Actor, w.Label, a)
		}
	}
	if len(ws) != 4 || got["alice"] != 2 || got["bob"] != 2 {
		t.Fatalf("%d windows by actor %v, want 2 each for alice and bob: %+v", len(ws), got, ws)
	}
	for _, f := range []string{"Alice_traces", "Bob_traces", "flamegraphs.html", "Alice_traces/diff-first-last.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	// The windows came from the sidecar container, not from the harness.
	logs, _ := filepath.Glob(filepath.Join(dir, "nodes", "*", "sampler", "container.log"))
	if len(logs) != 1 {
		t.Errorf("sampler container logs: %v", logs)
	} else if data, _ := os.ReadFile(logs[0]); !strings.Contains(string(data), "iteration mode") {
		t.Errorf("sampler container log: %s", data)
	}

	cf := checkComposeFile(t, dir)
	smp, ok := cf.Services["sampler"]
	if !ok {
		t.Fatal("the compose file has no sampler service")
	}
	if ps := smp.portStrings(); len(ps) != 1 || ps[0] != "127.0.0.1::7070" {
		t.Errorf("sampler publishes %v, want only 127.0.0.1::7070", ps)
	}
	for name, svc := range cf.Services {
		for _, p := range svc.portStrings() {
			if strings.Contains(p, "6060") {
				t.Errorf("service %s publishes pprof: %s", name, p)
			}
		}
	}
}
