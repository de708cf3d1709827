package perfprof

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/pprof/profile"
)

// Recorder runs perf over a process tree and converts what it saw.
type Recorder struct {
	Perf      string // perf's path; "" is "perf" from PATH
	Freq      int    // samples per second per CPU-busy thread; 0 is 99
	CallGraph string // "fp", "dwarf" or "auto" ("" is auto): see CallGraphFor
	ProcRoot  string // "" is /proc
	// Inline makes perf script name inlined functions too (it runs
	// addr2line over the binaries: slow on a large unstripped daemon).
	Inline bool
}

func (r Recorder) procRoot() string {
	if r.ProcRoot != "" {
		return r.ProcRoot
	}
	return "/proc"
}

func (r Recorder) freq() int {
	if r.Freq > 0 {
		return r.Freq
	}
	return 99
}

// Record profiles root and its descendants for d (less if ctx ends first:
// then the error is ctx's). Processes forked meanwhile are followed (perf
// inherits its events into children).
func (r Recorder) Record(ctx context.Context, root int, d time.Duration) (*profile.Profile, error) {
	perf := r.Perf
	if perf == "" {
		perf = "perf"
	}
	perf, err := exec.LookPath(perf)
	if err != nil {
		return nil, fmt.Errorf("perf not found (%v): install it (Debian: apt-get install linux-perf) or name it with --perf", err)
	}
	mode, _, err := CallGraphFor(r.CallGraph, filepath.Join(r.procRoot(), strconv.Itoa(root), "exe"))
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "perfprof-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	data := filepath.Join(tmp, "perf.data")
	var names map[int]string
	var start time.Time
	// perf refuses the whole list if one process exits before it attaches
	// (0.3 s on a busy machine), and lightningd's bcli plugin runs a short
	// bitcoin-cli every few seconds. So young processes are left out (those
	// forked after perf attaches are followed anyway), and on a refusal
	// the tree is listed again with a longer minimum age, the root always in.
	for _, minAge := range []time.Duration{time.Second, 5 * time.Second, 1 << 62} {
		pids, err := Tree(r.procRoot(), root)
		if err != nil {
			return nil, err
		}
		names = map[int]string{}
		for _, pid := range pids {
			names[pid] = ProcessName(r.procRoot(), pid)
		}
		start = time.Now()
		err = r.record(ctx, perf, mode, OlderThan(r.procRoot(), pids, minAge), data, d)
		if err == nil {
			break
		}
		if !errors.Is(err, errGone) || minAge == 1<<62 {
			return nil, err
		}
	}
	samples, err := r.script(ctx, perf, data)
	if err != nil {
		return nil, err
	}
	name := func(pid int, comm string) string {
		if n, ok := names[pid]; ok && n != "" {
			return n
		}
		if n := ProcessName(r.procRoot(), pid); n != "" { // forked meanwhile, maybe still alive
			names[pid] = n
			return n
		}
		return comm
	}
	return Convert(samples, name, r.freq(), start, d), nil
}

var errGone = errors.New("perf record: a profiled process exited before perf attached, three times")

// record runs perf record for d. Its duration is a `sleep` that perf
// starts once its events are on, so d is the time profiled, whatever perf
// spends attaching (0.3 s on a busy machine) and writing.
func (r Recorder) record(ctx context.Context, perf, mode string, pids []int, data string, d time.Duration) error {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		return fmt.Errorf("perf record: no sleep command to time it with: %v", err)
	}
	ps := make([]string, len(pids))
	for i, p := range pids {
		ps[i] = strconv.Itoa(p)
	}
	// -N -B: no build-id cache under ~/.debug and no build-id pass at the
	// end (seconds on a large binary); symbols are read from the paths.
	// --no-bpf-event: its side-band thread delays perf's exit by up to 1 s.
	args := []string{"record", "-N", "-B", "--no-bpf-event", "-F", strconv.Itoa(r.freq()), "--call-graph", mode,
		"-o", data, "-p", strings.Join(ps, ","), "--", sleep, strconv.FormatFloat(d.Seconds(), 'f', -1, 64)}
	cmd := exec.Command(perf, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("perf record: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return recordError(err, stderr.String())
	case <-ctx.Done():
	}
	_ = cmd.Process.Signal(syscall.SIGINT) // perf stops, writes what it has and exits
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
	return ctx.Err()
}

// recordError turns perf's multi-line complaints into one line with the fix.
func recordError(err error, stderr string) error {
	if err == nil {
		return nil
	}
	switch {
	case strings.Contains(stderr, "perf_event_paranoid") || strings.Contains(stderr, "Permission denied") ||
		strings.Contains(stderr, "Operation not permitted") || strings.Contains(stderr, "Access to performance monitoring"):
		return fmt.Errorf("perf record: permission denied (kernel.perf_event_paranoid=%s): run as root, or with CAP_PERFMON and CAP_SYS_PTRACE (containers: also a seccomp profile allowing perf_event_open), or lower it: sysctl kernel.perf_event_paranoid=-1", paranoid())
	case strings.Contains(stderr, "No such process"):
		return errGone
	}
	return fmt.Errorf("perf record: %v: %s", err, firstLine(stderr))
}

func paranoid() string {
	b, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

// firstLine is the first line of perf's stderr that says something ("Error:" alone does not).
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && l != "Error:" && !strings.HasPrefix(l, "[ perf record:") {
			return l
		}
	}
	return "(no message)"
}

// script converts perf.data to samples with perf script.
func (r Recorder) script(ctx context.Context, perf, data string) ([]Sample, error) {
	args := []string{"script", "-i", data, "-F", ScriptFields}
	if !r.Inline {
		args = append(args, "--no-inline")
	}
	cmd := exec.CommandContext(ctx, perf, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("perf script: %v: %s", err, firstLine(stderr.String()))
	}
	return Parse(&stdout)
}
