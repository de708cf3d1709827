package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/backend"
)

// TestStartProcEnv: a node's environment (a footprint's GOGC) reaches the
// process on top of the harness's own.
func TestStartProcEnv(t *testing.T) {
	t.Setenv("LNBENCH_TEST_INHERITED", "yes")
	log := filepath.Join(t.TempDir(), "out.log")
	p, err := startProc("envtest", "/bin/sh", []string{"-c", `echo "GOGC=$GOGC inherited=$LNBENCH_TEST_INHERITED"`}, log, "GOGC=50")
	if err != nil {
		t.Fatal(err)
	}
	<-p.done
	out, _ := os.ReadFile(log)
	if got := strings.TrimSpace(string(out)); got != "GOGC=50 inherited=yes" {
		t.Errorf("child saw %q", got)
	}
}

// TestProcDeath: an exited process reports its exit code, a killed one
// the signal, each with its log tail; a start that fails is the same
// typed death.
func TestProcDeath(t *testing.T) {
	for _, tt := range []struct {
		script string
		want   string
	}{
		{`echo starting; echo "wallet: out of luck"; exit 3`, "bob died: exited with code 3; last log lines:\n  starting\n  wallet: out of luck"},
		{`echo up; kill -9 $$`, "bob died: killed by SIGKILL; last log lines:\n  up"},
		{`exit 0`, "bob died: exited with code 0; no log lines"},
	} {
		log := filepath.Join(t.TempDir(), "bob.log")
		p, err := startProc("bob", "/bin/sh", []string{"-c", tt.script}, log)
		if err != nil {
			t.Fatal(err)
		}
		err = p.waitReady(context.Background(), "node", func() bool { return false })
		var de *backend.DeadError
		if !errors.As(err, &de) || len(de.Deaths) != 1 {
			t.Fatalf("%q: start error %v, want a DeadError", tt.script, err)
		}
		if got := de.Deaths[0].String(); got != tt.want {
			t.Errorf("%q:\n got %q\nwant %q", tt.script, got, tt.want)
		}
	}
}

// TestStartProcOnCPUSet: a process started on a CPU set runs there, as the
// kernel reports it (Cpus_allowed_list), the child it spawns too, and the
// harness's thread gets its own mask back.
func TestStartProcOnCPUSet(t *testing.T) {
	before := cpusAllowed(t, "self")
	log := filepath.Join(t.TempDir(), "out.log")
	p, err := startProcOn([]int{0}, "pinned", "/bin/sh", []string{"-c", `grep Cpus_allowed_list /proc/self/status; sh -c 'grep Cpus_allowed_list /proc/self/status'`}, log)
	if err != nil {
		t.Fatal(err)
	}
	<-p.done
	out, _ := os.ReadFile(log)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(line); len(f) != 2 || f[1] != "0" {
			t.Errorf("child on CPU set {0}: %q", line)
		}
	}
	if len(strings.Split(strings.TrimSpace(string(out)), "\n")) != 2 {
		t.Errorf("child output %q", out)
	}
	if after := cpusAllowed(t, "self"); after != before {
		t.Errorf("harness CPU set %s before, %s after", before, after)
	}
}

func cpusAllowed(t *testing.T, pid string) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatal("no Cpus_allowed_list")
	return ""
}
