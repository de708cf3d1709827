//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestComposeOOMAtStartIsReportedAtOnce: LND containers under a 128m
// limit are OOM-killed as they start (the floor that refuses such a limit
// is lifted, LNBENCH_MEMORY_FLOOR=off). The run must end within 60 s of
// the nodes' start with an error naming the OOM kill and the limit, not
// wait out the setup phase's timeout (3 min 10 s), and leave nothing.
func TestComposeOOMAtStartIsReportedAtOnce(t *testing.T) {
	bin := composeSetup(t)
	t.Setenv("LNBENCH_MEMORY_FLOOR", "off")
	scen := composeScenarioFile(t, "name: "+composeUniqueName("OOMAtStart")+"\ntopology: AlicePaysBob\n")
	start := time.Now()
	r := startCompose(t, bin, scen, "--memory", "128m", "--quick")

	// Watch the run's containers for the first one that exits, and when.
	var killedAt time.Time
	var killed string
	var nodesAt, reportedAt time.Time
	for !r.wait(250 * time.Millisecond) {
		out := r.out.String()
		if nodesAt.IsZero() && strings.Contains(out, "setup: nodes…") {
			nodesAt = time.Now()
		}
		if reportedAt.IsZero() && strings.Contains(out, "died: ") {
			reportedAt = time.Now()
		}
		if killedAt.IsZero() {
			if id := r.runID(); id != "" {
				killed, killedAt = firstExit(id)
			}
		}
		if !nodesAt.IsZero() && time.Since(nodesAt) > 60*time.Second {
			t.Fatalf("still running 60 s after the nodes started; output:\n%s", out)
		}
		if time.Since(start) > 10*time.Minute {
			t.Fatalf("no nodes started within 10 min; output:\n%s", out)
		}
	}
	out := r.out.String()
	if r.err == nil {
		t.Fatalf("exit 0 with LND under 128m; output:\n%s", out)
	}
	if nodesAt.IsZero() {
		t.Fatalf("ended before its nodes started; output:\n%s", out)
	}
	errLine := lastLnbenchLine(out)
	t.Logf("nodes started → exit: %.1f s (whole run %.1f s); first container to exit: %s at %s; death line seen %.1f s after it",
		time.Since(nodesAt).Seconds(), time.Since(start).Seconds(), killed, killedAt.Format("15:04:05.000"), reportedAt.Sub(killedAt).Seconds())
	t.Logf("error:\n%s", errLine)
	for _, want := range []string{"setup nodes: ", " died: OOM-killed at its memory limit of 128 MiB (exit code 137)", "last log lines:"} {
		if !strings.Contains(errLine, want) {
			t.Errorf("the error lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(errLine, "took longer than") || strings.Contains(errLine, "not ready") {
		t.Errorf("the setup timed out instead of naming the death:\n%s", errLine)
	}
	if !killedAt.IsZero() && reportedAt.Sub(killedAt) > 10*time.Second {
		t.Errorf("the death was reported %.1f s after the container exited, want seconds", reportedAt.Sub(killedAt).Seconds())
	}
	if left, err := composeRunObjects(r.runID()); err != nil || len(left) > 0 {
		t.Errorf("left after the run: %v %v", left, err)
	}
}

// firstExit is the first of a run's containers to have exited, with when
// the engine says it finished; "" while none has.
func firstExit(runID string) (string, time.Time) {
	ids, err := composeDockerList("ps", "-aq", "--filter", "label="+composeRunLabel+"="+runID, "--filter", "status=exited")
	if err != nil || len(ids) == 0 {
		return "", time.Time{}
	}
	out, err := exec.Command("docker", append([]string{"inspect"}, ids...)...).Output()
	if err != nil {
		return "", time.Time{}
	}
	var cs []struct {
		Name  string
		State struct {
			FinishedAt time.Time
			OOMKilled  bool
			ExitCode   int
		}
	}
	if json.Unmarshal(out, &cs) != nil {
		return "", time.Time{}
	}
	var name string
	var at time.Time
	for _, c := range cs {
		if at.IsZero() || c.State.FinishedAt.Before(at) {
			name = c.Name + " exit " + strconv.Itoa(c.State.ExitCode) + " OOMKilled=" + strconv.FormatBool(c.State.OOMKilled)
			at = c.State.FinishedAt
		}
	}
	return name, at
}

// lastLnbenchLine is the run's error: from the last "lnbench: " on.
func lastLnbenchLine(out string) string {
	i := strings.LastIndex(out, "lnbench: ")
	if i < 0 {
		return ""
	}
	return out[i:]
}

// TestLocalNodeKilledDuringSetup kills bob's lnd while the local network
// sets up (its funding phase: bob started and answered, so only the
// watch can see it die): the run ends within seconds with an error naming
// bob, the signal and its last log lines, and leaves no process and no
// work folder.
func TestLocalNodeKilledDuringSetup(t *testing.T) {
	binaries(t)
	bin := buildCLI(t)
	tmp, arts := t.TempDir(), artifactsDir(t)
	cmd := exec.Command(bin, "run", "--backend", "local", "--artifacts", arts, "--quick",
		"--param", "Concurrency=2", "--param", "TotalPayments=50")
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CI=1")
	var mu sync.Mutex
	var out bytes.Buffer
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := pr.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	text := func() string { mu.Lock(); defer mu.Unlock(); return out.String() }
	done := make(chan error, 1)
	go func() { done <- cmd.Wait(); pw.Close() }()

	if !poll(5*time.Minute, 50*time.Millisecond, func() bool { return strings.Contains(text(), "setup: fund…") }) {
		t.Fatalf("no funding phase within 5 min:\n%s", text())
	}
	var bob int
	for _, p := range processesMentioning(tmp) {
		if strings.Contains(p, "--alias=bob") {
			bob, _ = strconv.Atoi(strings.SplitN(p, ":", 2)[0])
		}
	}
	if bob == 0 {
		t.Fatalf("bob's lnd not found:\n%s", text())
	}
	if err := syscall.Kill(bob, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	var reported time.Duration
	poll(30*time.Second, 20*time.Millisecond, func() bool {
		if strings.Contains(text(), "bob died: ") {
			reported = time.Since(killed)
			return true
		}
		return false
	})
	var err error
	select {
	case err = <-done:
	case <-time.After(90 * time.Second):
		t.Fatalf("run still going 90 s after bob was killed:\n%s", text())
	}
	exited := time.Since(killed)
	errLine := lastLnbenchLine(text())
	t.Logf("kill → death line %.2f s, kill → exit %.2f s; error:\n%s", reported.Seconds(), exited.Seconds(), errLine)
	if err == nil {
		t.Fatalf("exit 0 after bob died in setup:\n%s", text())
	}
	for _, want := range []string{", setup ", "bob died: killed by SIGKILL; last log lines:\n  "} {
		if !strings.Contains(errLine, want) {
			t.Errorf("the error lacks %q:\n%s", want, text())
		}
	}
	if reported == 0 || reported > 10*time.Second {
		t.Errorf("bob's death reported after %v, want within seconds", reported)
	}
	if ps := processesMentioning(tmp); len(ps) > 0 {
		t.Errorf("left running: %v", ps)
	}
	if entries, _ := os.ReadDir(tmp + "/lnbench"); len(entries) > 0 {
		t.Errorf("work folder left: %v", entries)
	}
}
