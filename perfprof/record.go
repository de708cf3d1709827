package perfprof

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// Recorder is how perf records and reads a process tree.
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

func (r Recorder) perf() (string, error) {
	name := r.Perf
	if name == "" {
		name = "perf"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("perf not found (%v): install it (Debian: apt-get install linux-perf) or name it with --perf", err)
	}
	return path, nil
}

var errGone = errors.New("perf record: a profiled process exited before perf attached, three times")

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

// script converts perf.data to samples with perf script, with the task
// events that say which process forked which.
// kallsyms, when not "", is a copy of /proc/kallsyms: the kernel builds
// that file anew at each read, a third of perf script's CPU for a 1 s file.
func (r Recorder) script(ctx context.Context, perf, data, kallsyms string) (Script, error) {
	args := []string{"script", "-i", data, "-F", ScriptFields, "--show-task-events"}
	if kallsyms != "" {
		args = append(args, "--kallsyms", kallsyms)
	}
	if !r.Inline {
		args = append(args, "--no-inline")
	}
	cmd := exec.CommandContext(ctx, perf, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return Script{}, fmt.Errorf("perf script: %v", err)
	}
	// Reading can wait; the profiled nodes should not (perf record is left
	// at its priority: starved, it would lose samples).
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, cmd.Process.Pid, 10)
	if err := cmd.Wait(); err != nil {
		return Script{}, fmt.Errorf("perf script: %v: %s", err, firstLine(stderr.String()))
	}
	return Parse(&stdout)
}
