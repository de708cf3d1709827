//go:build e2e

package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/result"
)

// TestNodeCrashStopsTheRun kills bob's lnd mid-measurement: the run stops
// promptly, names bob with the tail of its log, keeps what was measured and
// leaves nothing running.
func TestNodeCrashStopsTheRun(t *testing.T) {
	t.Parallel() // local processes on free ports, own work and artifacts folders
	binaries(t)
	bin := buildCLI(t)
	tmp, arts := t.TempDir(), artifactsDir(t)
	cmd := exec.Command(bin, "run", "--backend", "local", "--artifacts", arts, "--param", "Concurrency=4", "--param", "TotalPayments=2000")
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	stream := waitForStream(arts, 20, 3*time.Minute)
	if stream == "" {
		t.Fatalf("no payments in time:\n%s", out.String())
	}
	var bob int
	for _, p := range processesMentioning(tmp) {
		if strings.Contains(p, "--alias=bob") {
			bob, _ = strconv.Atoi(strings.SplitN(p, ":", 2)[0])
		}
	}
	if bob == 0 {
		t.Fatal("bob's lnd not found")
	}
	syscall.Kill(bob, syscall.SIGKILL)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatalf("exit 0 after bob died:\n%s", out.String())
		}
	case <-time.After(90 * time.Second):
		t.Fatalf("run did not stop within 90 s of bob's death:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "bob died: killed by SIGKILL") || !strings.Contains(out.String(), "last log lines") {
		t.Fatalf("bob's death not reported:\n%s", out.String())
	}
	if ps := processesMentioning(tmp); len(ps) > 0 {
		t.Fatalf("left running: %v", ps)
	}
	if recs, _ := result.ReadFile(stream); len(recs) < 20 {
		t.Fatalf("measured payments lost: %d", len(recs))
	}
}
