//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/result"
)

// buildCLI compiles lnbench once per test binary.
func buildCLI(t *testing.T) string {
	t.Helper()
	cliOnce.Do(func() {
		if cliDir, cliErr = os.MkdirTemp("", "lnbench-e2e-cli-"); cliErr != nil {
			return
		}
		bin := filepath.Join(cliDir, "lnbench")
		// With CLN's bitcoin-cli beside it, as run.sh builds them.
		cmd := exec.Command("go", "build", "-o", cliDir+"/", "./cmd/lnbench", "./cmd/lnbench-bitcoin-cli")
		cmd.Dir = repoRoot(t)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // static: it also runs inside containers
		if out, err := cmd.CombinedOutput(); err != nil {
			cliErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		cliBin = bin
	})
	if cliErr != nil {
		t.Fatal(cliErr)
	}
	return cliBin
}

// One lnbench binary for the whole package (TestMain removes it): each
// test building its own cost a link of a few seconds, over a dozen times.
var (
	cliOnce        sync.Once
	cliDir, cliBin string
	cliErr         error
)

// TestBrokenPipeTeardown: `lnbench run | head`, head gone, must tear down
// like an interrupt (exit 141), not die at the next line it prints.
func TestBrokenPipeTeardown(t *testing.T) {
	t.Parallel()
	binaries(t)
	bin := buildCLI(t)
	tmp, arts := t.TempDir(), artifactsDir(t)
	cmd := exec.Command(bin, "run", "--backend", "local", "--artifacts", arts,
		"--param", "Concurrency=4", "--param", "TotalPayments=40")
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	go io.Copy(io.Discard, r) // the reader ("head") until payments flow
	stream := waitForStream(arts, 20, 3*time.Minute)
	if stream == "" {
		cmd.Process.Kill()
		t.Fatal("no payments recorded in time")
	}
	r.Close() // head exits: lnbench's next line meets a broken pipe
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if code := cmd.ProcessState.ExitCode(); code != 128+int(syscall.SIGPIPE) {
			t.Fatalf("exit %d (%v); want %d", code, err, 128+int(syscall.SIGPIPE))
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("lnbench did not exit within 2 min of its output's reader")
	}
	if ps := processesMentioning(tmp); len(ps) > 0 {
		t.Fatalf("left running after a broken pipe:\n%s", strings.Join(ps, "\n"))
	}
	if entries, _ := os.ReadDir(filepath.Join(tmp, "lnbench")); len(entries) > 0 {
		t.Errorf("work folder with node keys left behind: %v", entries)
	}
	if recs, err := result.ReadFile(stream); err != nil || len(recs) < 20 {
		t.Fatalf("measured payments lost: %d records, %v", len(recs), err)
	}
}

// TestSignalTeardown interrupts real runs mid-measurement with SIGINT and
// SIGTERM and checks that every process is gone, the exit is non-zero and
// the payments measured so far are on disk with a summary.
func TestSignalTeardown(t *testing.T) {
	t.Parallel() // local processes on free ports, own work and artifacts folders
	binaries(t)
	bin := buildCLI(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp, arts := t.TempDir(), artifactsDir(t)
			cmd := exec.Command(bin, "run", "--backend", "local", "--artifacts", arts,
				"--param", "Concurrency=4", "--param", "TotalPayments=1000")
			cmd.Dir = repoRoot(t)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stderr, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait for measurements to flow, then interrupt.
			stream := waitForStream(arts, 20, 3*time.Minute)
			if stream == "" {
				cmd.Process.Kill()
				t.Fatalf("no payments recorded in time; output:\n%s", stderr.String())
			}
			if ps := processesMentioning(tmp); len(ps) < 3 {
				t.Fatalf("expected btcd and two lnd running, found %v", ps)
			}
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
					t.Fatalf("exit %d after %v (%v); want %d", code, sig, err, 128+int(sig))
				}
			case <-time.After(90 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("lnbench did not exit within 90 s of %v", sig)
			}
			if ps := processesMentioning(tmp); len(ps) > 0 {
				t.Fatalf("left running after %v:\n%s", sig, strings.Join(ps, "\n"))
			}
			recs, err := result.ReadFile(stream)
			if err != nil || len(recs) < 20 {
				t.Fatalf("measured payments lost: %d records, %v", len(recs), err)
			}
			md, err := os.ReadFile(filepath.Join(filepath.Dir(stream), "summary.md"))
			if err != nil || !strings.Contains(string(md), "run ended early") {
				t.Fatalf("summary of the interrupted run missing or unmarked: %v\n%s", err, md)
			}
			if !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("no interruption message:\n%s", stderr.String())
			}
			entries, _ := os.ReadDir(filepath.Join(tmp, "lnbench"))
			if len(entries) > 0 {
				t.Errorf("work folder with node keys left behind: %v", entries)
			}
		})
	}
}
