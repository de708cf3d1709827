//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestInterruptAtEachPhase sends SIGINT in every phase a user can be in:
// a node build, then each setup phase of a real local run and its
// measurement. Each time: exit 130, "interrupted", no process and no work
// folder (wallets, keys) left, and no half-written build in the cache.
func TestInterruptAtEachPhase(t *testing.T) {
	binaries(t)
	bin := buildCLI(t)

	t.Run("build", func(t *testing.T) {
		// A cache of its own makes the build real (GOCACHE keeps it short).
		cache, tmp := t.TempDir(), t.TempDir()
		cmd := exec.Command(bin, "build", "--version", "lnd@v0.20.2-beta", "--cache", cache)
		cmd.Dir = repoRoot(t)
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		out := interruptAfter(t, cmd, "building lnd@v0.20.2-beta", 3*time.Second)
		if ps := processesMentioning(cache); len(ps) > 0 {
			t.Errorf("build processes left: %v", ps)
		}
		if m, _ := filepath.Glob(filepath.Join(cache, "bin", ".build-*")); len(m) > 0 {
			t.Errorf("half-written build left in the cache: %v\n%s", m, out)
		}
	})

	for _, phase := range []struct{ name, marker string }{
		{"chain", "setup: chain…"},
		{"nodes", "setup: nodes…"},
		{"funding", "setup: fund…"},
		{"channels", "setup: channels…"},
		{"routes", "setup: routes…"},
		{"measurement", " measure "},
	} {
		t.Run(phase.name, func(t *testing.T) {
			tmp, arts := t.TempDir(), artifactsDir(t)
			cmd := exec.Command(bin, "run", "--backend", "local", "--artifacts", arts, "--quick",
				"--param", "Concurrency=2", "--param", "TotalPayments=50")
			cmd.Dir = repoRoot(t)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CI=1")
			out := interruptAfter(t, cmd, phase.marker, 300*time.Millisecond)
			if ps := processesMentioning(tmp); len(ps) > 0 {
				t.Errorf("left running:\n%s", strings.Join(ps, "\n"))
			}
			if entries, _ := os.ReadDir(filepath.Join(tmp, "lnbench")); len(entries) > 0 {
				t.Errorf("work folder with node keys left behind: %v\n%s", entries, out)
			}
		})
	}
}

// interruptAfter starts cmd, sends SIGINT once a line of its output
// contains marker (plus delay, to land inside the phase), and checks the
// exit: 130 and one "interrupted" line. It returns the output.
func interruptAfter(t *testing.T, cmd *exec.Cmd, marker string, delay time.Duration) string {
	t.Helper()
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var out bytes.Buffer
	seen := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		once := false
		for sc.Scan() {
			mu.Lock()
			out.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if !once && strings.Contains(sc.Text(), marker) {
				once = true
				close(seen)
			}
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait(); pw.Close() }()
	text := func() string { mu.Lock(); defer mu.Unlock(); return out.String() }
	select {
	case <-seen:
	case err := <-done:
		t.Fatalf("ended (%v) before %q:\n%s", err, marker, text())
	case <-time.After(4 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("no %q within 4 minutes:\n%s", marker, text())
	}
	time.Sleep(delay)
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("still running 2 minutes after SIGINT:\n%s", text())
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d after SIGINT at %q, want 130:\n%s", code, marker, text())
	}
	if !strings.Contains(text(), "lnbench: interrupted") {
		t.Errorf("no 'interrupted' line:\n%s", text())
	}
	return text()
}
