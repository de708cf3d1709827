//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lnbench/lnbench/internal/testsupport"
)

// TestComposeKilledThenDownAll SIGKILLs the harness mid-measurement of a
// compose run (nothing of it gets to clean up), then `lnbench down --all`
// must leave nothing of the run: containers, networks, volumes, processes,
// its work folder (wallets, macaroons, TLS keys). A container started
// beside it with another label stays untouched.
//
// down --all removes every lnbench run on the engine, so the test first
// waits for other runs' objects to go (CI's backend/compose tests overlap
// the e2e package), and skips, failing in CI, when some stay or appear.
func TestComposeKilledThenDownAll(t *testing.T) {
	bin := composeSetup(t)
	alone := poll(10*time.Minute, 2*time.Second, func() bool { return len(otherRuns(t, "")) == 0 })
	testsupport.RequireOrSkip(t, alone, fmt.Sprintf("other lnbench runs on this engine (%v) for 10 minutes: down --all would remove them", otherRuns(t, "")))
	r := startCompose(t, bin, composeScenarioFile(t, composeLongJob("CmpKilled", 3000, "")))
	r.waitPayments(20, 5*time.Minute)
	id := r.runID()
	objs, err := composeRunObjects(id)
	if err != nil || len(objs) < 4 { // btcd, alice, bob and their network at least
		t.Fatalf("run %s objects before the kill: %v %v", id, objs, err)
	}
	others := otherRuns(t, id)
	testsupport.RequireOrSkip(t, len(others) == 0, fmt.Sprintf("other lnbench runs on this engine (%v): down --all would remove them", others))

	// The unrelated container: the run's own image, another label, no network.
	alice := composeServiceContainer(t, id, "alice")
	image := strings.TrimSpace(dockerOut(t, "inspect", "--format", "{{.Config.Image}}", alice))
	unrelated := strings.TrimSpace(dockerOut(t, "run", "-d", "--network", "none", "--label", "lnbench.e2e=unrelated",
		"--entrypoint", "sleep", image, "600"))
	t.Cleanup(func() { exec.Command("docker", "rm", "-f", unrelated).Run() })

	work := filepath.Join(r.tmp, "lnbench", id)
	if _, err := os.Stat(work); err != nil {
		t.Fatalf("the run's work folder: %v", err)
	}
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !r.wait(10 * time.Second) {
		t.Fatal("the harness outlived SIGKILL")
	}
	if left, _ := composeRunObjects(id); len(left) < 4 {
		t.Fatalf("a SIGKILLed harness cleaned up after itself?: %v", left)
	}

	down := exec.Command(bin, "down", "--all")
	down.Dir = repoRoot(t)
	down.Env = append(os.Environ(), "TMPDIR="+r.tmp) // the work folders live under $TMPDIR/lnbench
	out, err := down.CombinedOutput()
	if err != nil {
		t.Fatalf("down --all: %v\n%s", err, out)
	}
	t.Logf("down --all:\n%s", out)
	// btcd, alice, bob, their network and the run's work folder: the run
	// was the engine's only one and $TMPDIR is the test's own.
	if !strings.Contains(string(out), "removed 3 container(s), 1 network(s), 0 volume(s), 1 work folder(s)") {
		t.Errorf("down --all did not remove the run's 3 containers, network and work folder")
	}
	r.checkNothingLeft()
	if _, err := os.Stat(work); !os.IsNotExist(err) {
		t.Errorf("work folder %s left: %v", work, err)
	}
	if !poll(10*time.Second, 200*time.Millisecond, func() bool { return len(processesMentioning(id)) == 0 }) {
		t.Errorf("processes of run %s left: %v", id, processesMentioning(id))
	}
	if ps := processesMentioning(r.tmp); len(ps) > 0 {
		t.Errorf("processes of the killed harness left: %v", ps)
	}
	state := strings.TrimSpace(dockerOut(t, "inspect", "--format", "{{.State.Running}} {{index .Config.Labels \"lnbench.e2e\"}}", unrelated))
	if state != "true unrelated" {
		t.Errorf("the unrelated container: %q, want it running with its label", state)
	}
}

// otherRuns lists the lnbench run ids on this engine other than mine.
func otherRuns(t *testing.T, mine string) []string {
	t.Helper()
	seen := map[string]bool{}
	for _, args := range [][]string{{"ps", "-a"}, {"network", "ls"}, {"volume", "ls"}} {
		out := dockerOut(t, append(args, "--filter", "label="+composeRunLabel, "--format", "{{.Label \""+composeRunLabel+"\"}}")...)
		for _, id := range strings.Fields(out) {
			if id != mine {
				seen[id] = true
			}
		}
	}
	return keys(seen)
}

func dockerOut(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("docker", args...).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("docker %s: %v %s", strings.Join(args, " "), err, msg)
	}
	return string(out)
}
