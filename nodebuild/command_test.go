//go:build unix

package nodebuild

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A cancelled command takes its whole process group with it: go build's
// compilers are grandchildren, like the sleep here.
func TestCancelKillsTheProcessGroup(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "ready")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, command{Dir: dir, Log: &bytes.Buffer{}, Name: "sh",
			Args: []string{"-c", "sleep 1000 & echo $! > " + fifo + "; wait"}})
	}()
	data, err := os.ReadFile(fifo) // blocks until the grandchild runs
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	err = <-done
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v must wrap context.Canceled", err)
	}
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("grandchild %d survived the cancel", pid)
	}
}

// alive is true for a running process; a killed one not yet reaped by its
// new parent is a zombie and counts as dead.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil && !errors.Is(err, os.ErrNotExist)
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
