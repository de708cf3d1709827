//go:build unix

package nodebuild

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// grandchild is a process the command under test starts in the background,
// like go build's compilers. It holds the fifo held open for writing, so
// reading held to its end waits for its death without a clock.
type grandchild struct{ ready, held string }

func newGrandchild(t *testing.T) grandchild {
	dir := t.TempDir()
	g := grandchild{filepath.Join(dir, "ready"), filepath.Join(dir, "held")}
	for _, f := range []string{g.ready, g.held} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// shell starts the grandchild and waits for it.
func (g grandchild) shell() string {
	return "sleep 1000 3>" + g.held + " & echo $! > " + g.ready + "; wait"
}

// started blocks until the grandchild runs and returns the held fifo.
func (g grandchild) started(t *testing.T) (int, *os.File) {
	data, err := os.ReadFile(g.ready)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	held, err := os.Open(g.held)
	if err != nil {
		t.Fatal(err)
	}
	return pid, held
}

// dies blocks until the grandchild's end of held closes (it died), then
// checks it is no longer running. A test of a group kill that does not
// happen blocks here until go test's timeout.
func (g grandchild) dies(t *testing.T, pid int, held *os.File) {
	io.Copy(io.Discard, held)
	held.Close()
	// A dying process closes its files before it turns zombie: give the
	// kernel that moment (the fifo's end already proved the kill).
	for i := 0; i < 200 && alive(pid); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("grandchild %d survived the cancel", pid)
	}
}

// A cancelled command takes its whole process group with it.
func TestCancelKillsTheProcessGroup(t *testing.T) {
	g := newGrandchild(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, command{Dir: t.TempDir(), Log: &bytes.Buffer{}, Name: "sh", Args: []string{"-c", g.shell()}})
	}()
	pid, held := g.started(t)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v must wrap context.Canceled", err)
	}
	g.dies(t, pid, held)
}

// alive is true for a running process; a killed one not yet reaped by its
// new parent is a zombie and counts as dead.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

func TestFailedCommandNamesItself(t *testing.T) {
	err := run(context.Background(), command{Dir: t.TempDir(), Log: &bytes.Buffer{}, Name: "sh", Args: []string{"-c", "exit 3"}})
	if err == nil || !strings.Contains(err.Error(), "sh -c exit 3") || errors.Is(err, context.Canceled) {
		t.Fatalf("error %v", err)
	}
}
