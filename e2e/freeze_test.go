//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lnbench/lnbench/report"
)

// procState is one reading of a node or chain process by the kernel.
type procState struct {
	at    time.Time
	cmd   string
	state byte // /proc/PID/stat's state: R, S, D, T (stopped) …
}

// watchProcStates reads the state of every lnd and btcd this test process
// started, every period, until stop is called; stop returns the readings.
func watchProcStates(period time.Duration) (stop func() []procState) {
	var mu sync.Mutex
	var seen []procState
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			for _, pid := range nodeProcesses() {
				stat, err := os.ReadFile("/proc/" + pid + "/stat")
				at := time.Now()
				i := strings.LastIndexByte(string(stat), ')')
				if err != nil || i < 0 || i+2 >= len(stat) {
					continue
				}
				mu.Lock()
				seen = append(seen, procState{at: at, cmd: cmdline(pid), state: stat[i+2]})
				mu.Unlock()
			}
			select {
			case <-quit:
				return
			case <-time.After(period):
			}
		}
	}()
	return func() []procState {
		close(quit)
		<-done
		mu.Lock()
		defer mu.Unlock()
		return seen
	}
}

// nodeProcesses are the pids of every lnd and btcd this test process
// started (its descendants).
func nodeProcesses() []string {
	var pids []string
	for _, n := range descendants(os.Getpid()) {
		pid := strconv.Itoa(n)
		comm, _ := os.ReadFile("/proc/" + pid + "/comm")
		if name := strings.TrimSpace(string(comm)); name == "lnd" || name == "btcd" {
			pids = append(pids, pid)
		}
	}
	return pids
}

// specOfProcess is the node spec label of the network a process of run id
// belongs to: its data folder is <work>/<id>/<launchN_Node-LABEL_…>/….
func specOfProcess(cmd, id string) (string, bool) {
	_, rest, ok := strings.Cut(cmd, "/"+id+"/")
	if !ok {
		return "", false
	}
	network, _, _ := strings.Cut(rest, "/")
	_, spec, ok := strings.Cut(network, "Node-")
	spec, _, _ = strings.Cut(spec, "_")
	return spec, ok
}

// TestFreezeIdleRun runs two specs of one build interleaved with
// --freeze-idle on real nodes, and checks the kernel's own account: inside
// every measured iteration of one spec, every lnd and btcd of the other
// spec's network is stopped (state T), and none of the running spec's is.
func TestFreezeIdleRun(t *testing.T) {
	binaries(t)
	t.Parallel()
	stop := watchProcStates(50 * time.Millisecond)
	dir := runCLI(t, "run", "--node", "a=lnd@v0.21.0-beta", "--node", "b=lnd@v0.21.0-beta", "--baseline", "a", "--design", "interleaved", "--freeze-idle",
		"--param", "Concurrency=5", "--param", "TotalPayments=40", "--job", "LaunchCount=2", "--job", "WarmupCount=1", "--job", "IterationCount=3")
	states := stop()
	rep := readSummary(t, dir)
	if d := rep.Design; d == nil || d.Name != report.DesignInterleaved || !strings.Contains(d.Iterations, "frozen") {
		t.Fatalf("design %+v, want interleaved with the waiting network frozen", rep.Design)
	}
	spans := measuredSpans(t, dir)
	if len(spans) != 12 {
		t.Fatalf("%d measured iterations, want 2 pairs × 2 specs × 3", len(spans))
	}
	// Inside an iteration, away from its ends: the freeze comes before its
	// first payment and the thaw after its last.
	const margin = 150 * time.Millisecond
	checked, wrong := 0, 0
	for _, s := range states {
		spec, ok := specOfProcess(s.cmd, rep.RunID)
		if !ok {
			continue
		}
		for _, sp := range spans {
			if s.at.Before(sp.from.Add(margin)) || s.at.After(sp.to.Add(-margin)) {
				continue
			}
			checked++
			if frozen := s.state == 'T'; frozen != (spec != sp.spec) {
				wrong++
				if wrong <= 5 {
					t.Errorf("%s during spec %s's iteration %d: process of spec %s in state %c", s.at.Format("15:04:05.000"), sp.spec, sp.index, spec, s.state)
				}
			}
		}
	}
	t.Logf("%d readings of the run's processes inside measured iterations, %d wrong", checked, wrong)
	if checked < 30 {
		t.Errorf("only %d readings inside measured iterations: the check saw too little", checked)
	}
}

// TestComposeFreezeIdle is TestFreezeIdleRun on the compose backend, where
// the freeze is `docker pause`: inside every measured iteration of one
// spec, Docker reports every container of the other spec's network paused
// and none of the running spec's.
func TestComposeFreezeIdle(t *testing.T) {
	bin := composeSetup(t)
	scen := composeScenarioFile(t, fmt.Sprintf(`name: %s
topology: AlicePaysBob
params: {Concurrency: [5], TotalPayments: [150]}
job: {LaunchCount: 1, WarmupCount: 1, IterationCount: 4}
`, composeUniqueName("CmpFreeze")))
	r := startCompose(t, bin, scen, "--node", "a=lnd@v0.21.0-beta", "--node", "b=lnd@v0.21.0-beta", "--baseline", "a", "--design", "interleaved", "--freeze-idle")
	var states []containerState
	for !r.wait(200 * time.Millisecond) {
		if id := r.runID(); id != "" {
			states = append(states, containerStates(id)...)
		}
	}
	if r.err != nil {
		t.Fatalf("lnbench run: %v\n%s", r.err, r.out.String())
	}
	dir := r.dir()
	rep := readSummary(t, dir)
	if d := rep.Design; d == nil || d.Name != report.DesignInterleaved || !strings.Contains(d.Iterations, "frozen") {
		t.Fatalf("design %+v, want interleaved with the waiting network frozen", rep.Design)
	}
	spans := measuredSpans(t, dir)
	if len(spans) != 8 {
		t.Fatalf("%d measured iterations, want 1 pair × 2 specs × 4", len(spans))
	}
	// docker ps takes tens of milliseconds. 150 payments keep an iteration
	// about 3 s long on a machine that makes 50 payments/s at c=5 (CI's
	// did: 40 left 20 ms between the margins, and 6 readings).
	const margin = 400 * time.Millisecond
	checked, wrong := 0, 0
	services := map[string]bool{}
	for _, s := range states {
		services[s.service] = true
		for _, sp := range spans {
			if s.at.Before(sp.from.Add(margin)) || s.at.After(sp.to.Add(-margin)) {
				continue
			}
			checked++
			if paused := s.state == "paused"; paused != (s.spec != sp.spec) {
				wrong++
				if wrong <= 5 {
					t.Errorf("%s during spec %s's iteration %d: %s of spec %s %s", s.at.Format("15:04:05.000"), sp.spec, sp.index, s.service, s.spec, s.state)
				}
			}
		}
	}
	t.Logf("services %v; %d readings inside measured iterations, %d wrong", keys(services), checked, wrong)
	if checked < 20 {
		t.Errorf("only %d readings inside measured iterations: the check saw too little", checked)
	}
}

// containerState is Docker's account of one container of a run.
type containerState struct {
	at                   time.Time
	spec, service, state string
}

// containerStates lists the state of every container of run id; spec is
// the node spec label of the container's network ("launch1/Node=a" → a).
func containerStates(id string) []containerState {
	before := time.Now()
	out, err := exec.Command("docker", "ps", "-a", "--filter", "label="+composeRunLabel+"="+id,
		"--format", `{{.Label "lnbench.network"}}|{{.Label "com.docker.compose.service"}}|{{.State}}`).Output()
	at := before.Add(time.Since(before) / 2)
	if err != nil {
		return nil
	}
	var states []containerState
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 3 {
			continue
		}
		_, spec, ok := strings.Cut(f[0], "Node=")
		if !ok {
			continue
		}
		spec, _, _ = strings.Cut(spec, "/")
		states = append(states, containerState{at: at, spec: spec, service: f[1], state: f[2]})
	}
	return states
}
