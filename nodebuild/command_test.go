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

// tidyNoise is what go mod tidy prints for LND's test-only dependencies.
const tidyNoise = `for i in $(seq 16); do echo "go: finding module for package github.com/juju/clock/testclock" >&2; done`

// withFakeGo runs every build step as the shell script instead of go,
// through the real run (so Quiet and the error path are exercised).
func withFakeGo(t *testing.T, script string) *[]command {
	var seen []command
	old := runCommand
	runCommand = func(ctx context.Context, c command) error {
		seen = append(seen, c)
		c.Name, c.Args = "sh", []string{"-c", script}
		return run(ctx, c)
	}
	t.Cleanup(func() { runCommand = old })
	return &seen
}

func sourceTree(t *testing.T) Spec {
	tree := t.TempDir()
	write(t, filepath.Join(tree, "go.mod"), "module github.com/lightningnetwork/lnd\n\ngo 1.23\n")
	return Spec{Implementation: "lnd", Version: SourceVersion, SourceDir: tree}
}

func TestTidyOutputOnlyWhenItFails(t *testing.T) {
	spec := sourceTree(t)
	var log bytes.Buffer
	seen := withFakeGo(t, tidyNoise)
	if err := prepareSourceModule(context.Background(), spec, filepath.Join(t.TempDir(), "m"), nil, &log); err != nil {
		t.Fatal(err)
	}
	if len(*seen) != 1 || strings.Join((*seen)[0].Args, " ") != "mod tidy" {
		t.Fatalf("steps %+v", *seen)
	}
	if strings.Contains(log.String(), "juju") || !strings.Contains(log.String(), "go mod tidy") {
		t.Fatalf("a successful tidy must print its step, not its lookups:\n%s", log.String())
	}

	log.Reset()
	withFakeGo(t, tidyNoise+"; echo 'go: github.com/x/y@v1: missing go.sum entry' >&2; exit 1")
	err := prepareSourceModule(context.Background(), spec, filepath.Join(t.TempDir(), "m"), nil, &log)
	if err == nil {
		t.Fatal("a failed tidy must fail the build")
	}
	if n := strings.Count(log.String(), "juju"); n != 16 || !strings.Contains(log.String(), "missing go.sum entry") {
		t.Fatalf("a failed tidy must show all it printed (%d juju lines):\n%s", n, log.String())
	}
}

func TestLoudCommandStreams(t *testing.T) {
	var log bytes.Buffer
	if err := run(context.Background(), command{Dir: t.TempDir(), Log: &log, Name: "sh", Args: []string{"-c", "echo compiling"}}); err != nil {
		t.Fatal(err)
	}
	if log.String() != "compiling\n" {
		t.Fatalf("log %q", log.String())
	}
}

// A failed build's error keeps the command on its first line and names
// the compiler's first diagnostic on the next, whether the output went to
// the log or was held back.
func TestRunFailureNamesTheDiagnostic(t *testing.T) {
	script := `echo "# github.com/lightningnetwork/lnd"; echo "./lnd.go:12:9: undefined: nope" >&2; echo "./lnd.go:13:1: later" >&2; exit 1`
	for _, quiet := range []bool{false, true} {
		var log bytes.Buffer
		err := run(context.Background(), command{Dir: t.TempDir(), Log: &log, Name: "sh", Args: []string{"-c", script}, Quiet: quiet})
		if err == nil {
			t.Fatal("a failing command returned no error")
		}
		first, rest, _ := strings.Cut(err.Error(), "\n")
		if !strings.HasPrefix(first, "sh -c ") || rest != "./lnd.go:12:9: undefined: nope" {
			t.Errorf("quiet=%v: error %q", quiet, err)
		}
		if !strings.Contains(log.String(), "undefined: nope") {
			t.Errorf("quiet=%v: log lost the output: %q", quiet, log.String())
		}
	}
}
