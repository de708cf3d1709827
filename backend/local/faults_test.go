package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend"
)

// startSleeper tracks a shell that logs its start and sleeps, as an actor.
func startSleeper(t *testing.T, b *Backend, name string) *proc {
	t.Helper()
	log := filepath.Join(t.TempDir(), "stdout.log")
	p, err := startProc(name, "/bin/sh", []string{"-c", "echo started; exec sleep 60"}, log)
	if err != nil {
		t.Fatal(err)
	}
	p.ready = func() bool { data, _ := os.ReadFile(log); return strings.Count(string(data), "started") > 0 }
	if err := p.waitReady(context.Background(), "actor", p.ready); err != nil {
		t.Fatal(err)
	}
	b.track(p)
	b.eps[name] = backend.NodeEndpoint{Name: name, RPCHost: "127.0.0.1:1"}
	t.Cleanup(func() { b.mu.Lock(); q := b.procs[name]; b.mu.Unlock(); q.stop(time.Second) })
	return p
}

// state is the process state letter from /proc (S sleeping, T stopped).
func state(t *testing.T, pid int) string {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(data)[strings.LastIndexByte(string(data), ')')+1:])
	return f[0]
}

func TestPauseResumeKill(t *testing.T) {
	b, err := New(Options{WorkDir: t.TempDir(), StartTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	p := startSleeper(t, b, "bob")
	ctx := context.Background()
	if err := b.Pause(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	waitState(t, p.cmd.Process.Pid, "T")
	if err := b.Resume(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	waitState(t, p.cmd.Process.Pid, "S")
	if err := b.Kill(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	if !p.exited() || len(b.Dead(ctx)) != 1 {
		t.Errorf("killed actor: exited %v, dead %v", p.exited(), b.Dead(ctx))
	}
	if err := b.Pause(ctx, "bob"); err == nil || !strings.Contains(err.Error(), "bob: not running") {
		t.Errorf("pausing a dead actor: %v", err)
	}
	if err := b.Kill(ctx, "carol"); err == nil || !strings.Contains(err.Error(), "carol: no such actor") {
		t.Errorf("unknown actor: %v", err)
	}
}

func waitState(t *testing.T, pid int, want string) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if state(t, pid) == want {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("pid %d state %s, want %s", pid, state(t, pid), want)
}

// TestRestart: the same command starts again, even from a paused actor;
// its log goes on after the first life's; the endpoint is returned.
func TestRestart(t *testing.T) {
	b, err := New(Options{WorkDir: t.TempDir(), StartTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	old := startSleeper(t, b, "bob")
	ctx := context.Background()
	if err := b.Pause(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	ep, err := b.Restart(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if ep.RPCHost != "127.0.0.1:1" || !old.exited() {
		t.Errorf("endpoint %+v, old exited %v", ep, old.exited())
	}
	b.mu.Lock()
	now := b.procs["bob"]
	b.mu.Unlock()
	if now == old || now.exited() || len(b.order) != 1 {
		t.Errorf("restart did not replace the process: order %v", b.order)
	}
	for i := 0; i < 100 && !strings.Contains(readFile(now.logPath), "started\nstarted"); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if got := readFile(now.logPath); got != "started\nstarted\n" {
		t.Errorf("log after restart %q (old %v new %v %s)", got, old.err, now.exited(), now.cmd.String())
	}
	if len(b.Dead(ctx)) != 0 {
		t.Errorf("restarted actor reported dead: %v", b.Dead(ctx))
	}
}

func readFile(p string) string { data, _ := os.ReadFile(p); return string(data) }

// The refusal's fix names the registered backends that impair; this
// package's test registers only local, so it checks the fault's name.
func TestImpairIsRefused(t *testing.T) {
	b, _ := New(Options{WorkDir: t.TempDir()})
	_, err := b.Impair(context.Background(), "carol", "", backend.Impairment{Delay: time.Millisecond})
	var nc backend.ErrNoImpairments
	if !errors.As(err, &nc) || !strings.Contains(err.Error(), "impairing carol needs a backend whose nodes have their own network interface") {
		t.Errorf("Impair: %v", err)
	}
	if _, err := b.Clear(context.Background(), "carol", "alice"); !errors.As(err, &nc) {
		t.Errorf("Clear: %v", err)
	}
}
