package backend

import (
	"fmt"
	"strings"
	"syscall"

	"github.com/docker/docker/api/types/container"
)

// Death is one actor (a node, btcd, a sampler) that stopped while it
// should be running, with what is known of why: every backend reports
// deaths as this value, so the runner never parses a description back.
type Death struct {
	Actor string // the service: a node's name, "btcd", "sampler"
	// Reason is the state it was found in when nothing below says more:
	// "exited", "paused", "task failed", "engine lost (Down)".
	Reason string
	// ExitCode is the process's exit status; -1 when unknown (killed by a
	// signal on local, the engine could not say).
	ExitCode int
	// Signal is the signal that ended it ("SIGKILL"), "" when none or unknown.
	Signal string
	// OOM is set when the kernel's OOM killer ended it (the engine's
	// State.OOMKilled).
	OOM bool
	// MemoryLimit is the container's memory limit in bytes; 0 when none.
	MemoryLimit int64
	// Where is the engine or host it ran on, when several are in use.
	Where string
	// LogTail is the last lines of its log, oldest first.
	LogTail []string
}

// Cause says why the actor died in a few words: "OOM-killed at its memory
// limit of 128 MiB (exit code 137)", "killed by SIGKILL", "exited with code 1".
func (d Death) Cause() string {
	var s string
	switch {
	case d.OOM && d.MemoryLimit > 0:
		s = "OOM-killed at its memory limit of " + MiB(d.MemoryLimit)
	case d.OOM:
		s = "OOM-killed"
	case d.Signal != "" && d.ExitCode < 0:
		s = "killed by " + d.Signal
	case d.ExitCode >= 0 && d.Reason != "" && d.Reason != "exited":
		s = fmt.Sprintf("%s with exit code %d", d.Reason, d.ExitCode)
	case d.ExitCode >= 0:
		s = fmt.Sprintf("exited with code %d", d.ExitCode)
	case d.Reason != "":
		s = d.Reason
	default:
		s = "stopped (cause unknown)"
	}
	var notes []string
	if d.OOM && d.ExitCode >= 0 {
		notes = append(notes, fmt.Sprintf("exit code %d", d.ExitCode))
	}
	if !d.OOM && d.Signal != "" && d.ExitCode >= 0 {
		notes = append(notes, d.Signal)
	}
	if !d.OOM && d.MemoryLimit > 0 && d.Signal == "SIGKILL" {
		// cgroup v2 engines may miss the OOM flag: the limit is the lead.
		notes = append(notes, "memory limit "+MiB(d.MemoryLimit))
	}
	if d.Where != "" {
		notes = append(notes, "on "+d.Where)
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s
}

// String is the death in one line plus the indented log tail:
// "alice died: OOM-killed at its memory limit of 128 MiB (exit code 137); last log lines:\n  …".
func (d Death) String() string {
	s := d.Actor + " died: " + d.Cause()
	if len(d.LogTail) == 0 {
		return s + "; no log lines"
	}
	return s + "; last log lines:\n  " + strings.Join(d.LogTail, "\n  ")
}

// DeadError is the error of a phase (setup, warm-up, measurement) ended
// because actors died; errors.As finds it under the phase's wrapping.
type DeadError struct {
	Deaths []Death
}

func (e *DeadError) Error() string {
	parts := make([]string, len(e.Deaths))
	for i, d := range e.Deaths {
		parts[i] = d.String()
	}
	return strings.Join(parts, "\n")
}

// Actors names the dead actors, in order.
func (e *DeadError) Actors() []string {
	out := make([]string, len(e.Deaths))
	for i, d := range e.Deaths {
		out[i] = d.Actor
	}
	return out
}

// MiB writes bytes as whole MiB ("128 MiB"), or GiB with one decimal
// from 1 GiB on.
func MiB(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%d MiB", b>>20)
}

// SignalOfExitCode is the signal a shell-style exit code above 128 names
// ("SIGKILL" for 137), "" for other codes.
func SignalOfExitCode(code int) string {
	if code > 128 && code < 128+65 {
		return SignalName(syscall.Signal(code - 128))
	}
	return ""
}

// SignalName is "SIGKILL" for syscall.SIGKILL.
func SignalName(s syscall.Signal) string {
	if name := signalNames[s]; name != "" {
		return name
	}
	return fmt.Sprintf("signal %d", int(s))
}

var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT", syscall.SIGILL: "SIGILL",
	syscall.SIGTRAP: "SIGTRAP", syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE",
	syscall.SIGKILL: "SIGKILL", syscall.SIGUSR1: "SIGUSR1", syscall.SIGSEGV: "SIGSEGV", syscall.SIGUSR2: "SIGUSR2",
	syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM", syscall.SIGXCPU: "SIGXCPU",
	syscall.SIGSYS: "SIGSYS",
}

// DeathOf reads a death from a container's state as the engine reports
// it: its status, exit code, OOM flag and memory limit.
func DeathOf(actor string, st *container.State, hc *container.HostConfig) Death {
	if st == nil {
		st = &container.State{}
	}
	d := Death{Actor: actor, Reason: st.Status, ExitCode: st.ExitCode, OOM: st.OOMKilled, Signal: SignalOfExitCode(st.ExitCode)}
	if hc != nil {
		d.MemoryLimit = hc.Memory
	}
	switch st.Status {
	case "exited", "dead":
		d.Reason = "exited"
	case "paused", "restarting", "removing", "created":
		// Not an exit: the code is the previous life's.
		d.ExitCode, d.Signal = -1, ""
	}
	if st.Error != "" {
		d.Reason += ": " + st.Error
	}
	return d
}

// TailLines splits a log tail into lines, dropping trailing blank ones
// and any indentation added for display.
func TailLines(s string) []string {
	s = strings.TrimRight(s, "\n ")
	if strings.TrimSpace(s) == "" {
		return nil
	}
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimPrefix(l, "  ")
	}
	return ls
}
