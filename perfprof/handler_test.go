package perfprof

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lnbench/lnbench/sampler"
)

// perf's own words when kernel.perf_event_paranoid forbids the profile
// (captured: perf 6.1 run as nobody against a root process, exit 255).
const paranoidMessage = `Error:
Access to performance monitoring and observability operations is limited.
Consider adjusting /proc/sys/kernel/perf_event_paranoid setting to open
access to performance monitoring and observability operations for processes
without CAP_PERFMON, CAP_SYS_PTRACE or CAP_SYS_ADMIN Linux capability.
perf_event_paranoid setting is 2:
`

// fakePerf is a perf that fails as the real one does.
func fakePerf(t *testing.T, stderr string, code int) string {
	t.Helper()
	dir := t.TempDir()
	msg := filepath.Join(dir, "msg")
	os.WriteFile(msg, []byte(stderr), 0o644)
	path := filepath.Join(dir, "perf")
	script := "#!/bin/sh\ncat " + msg + " >&2\nexit " + strconv.Itoa(code) + "\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// fetch asks the handler through the sampler's own client, as a run does.
func fetch(t *testing.T, h *Handler, secs int) error {
	t.Helper()
	srv := httptest.NewServer(h.Mux())
	defer srv.Close()
	_, err := sampler.Fetch(context.Background(), srv.Client(), sampler.Target{Actor: "alice", URL: srv.URL}, time.Duration(secs)*time.Second)
	return err
}

func self() (int, error) { return os.Getpid(), nil }

func TestErrorsReachTheSamplerAsOneLine(t *testing.T) {
	for name, c := range map[string]struct {
		h    *Handler
		want string
	}{
		"paranoid":     {&Handler{Target: self, Profiler: &Profiler{Recorder: Recorder{Perf: fakePerf(t, paranoidMessage, 255), CallGraph: "fp"}}}, "HTTP 500: perfprof: perf record: permission denied (kernel.perf_event_paranoid="},
		"seccomp":      {&Handler{Target: self, Profiler: &Profiler{Recorder: Recorder{Perf: fakePerf(t, "perf_event_open(..., PERF_FLAG_FD_CLOEXEC) failed with unexpected error 1 (Operation not permitted)\n", 255), CallGraph: "fp"}}}, "permission denied"},
		"missing perf": {&Handler{Target: self, Profiler: &Profiler{Recorder: Recorder{Perf: filepath.Join(t.TempDir(), "perf"), CallGraph: "fp"}}}, "HTTP 500: perfprof: perf not found"},
		"other":        {&Handler{Target: self, Profiler: &Profiler{Recorder: Recorder{Perf: fakePerf(t, "Error:\nsomething odd\nmore\n", 1), CallGraph: "fp"}}}, "perf record: exit status 1: something odd"},
		"no target":    {&Handler{Target: func() (int, error) { return 0, errNotRunning }, Profiler: &Profiler{}}, "HTTP 503: perfprof: node alice is not running"},
	} {
		err := fetch(t, c.h, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", name, err, c.want)
		}
	}
}

var errNotRunning = errors.New("node alice is not running")

func TestBadSecondsAndOneProfileAtATime(t *testing.T) {
	h := &Handler{Target: self, Profiler: &Profiler{}}
	srv := httptest.NewServer(h.Mux())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/debug/pprof/profile?seconds=0")
	if err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("%v %v", resp, err)
	}
	h.busy.Store(true)
	resp, err = http.Get(srv.URL + "/debug/pprof/profile?seconds=1")
	if err != nil || resp.StatusCode != http.StatusConflict {
		t.Fatalf("%v %v", resp, err)
	}
}

// TestMain doubles as a small process tree for the /proc tests:
// PERFPROF_TREE=2 starts one more level below it, then idles 20 s.
func TestMain(m *testing.M) {
	if n := os.Getenv("PERFPROF_TREE"); n != "" {
		if n == "2" {
			// Pdeathsig fires when the creating thread ends, which the Go
			// runtime may do before the process does (go.dev/issue/27505):
			// this thread stays, locked, until os.Exit.
			runtime.LockOSThread()
			c := exec.Command(os.Args[0])
			c.Env = append(os.Environ(), "PERFPROF_TREE=1")
			c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // ends with its parent
			if err := c.Start(); err != nil {
				fmt.Fprintln(os.Stderr, "tree child:", err)
			}
		}
		time.Sleep(20 * time.Second)
		os.Exit(0)
	}
	os.Exit(m.Run())
}
