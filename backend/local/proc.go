package local

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/internal/lines"
)

// proc is one child process, in its own process group so that stopping it
// stops anything it spawned and a Ctrl-C on the terminal reaches only us.
type proc struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	err     error
	out     *os.File
	// dataDir and pprofHost describe the actor for resource sampling.
	dataDir, pprofHost string
	// bin, args and env start it again (a restart fault).
	bin  string
	args []string
	env  []string
	// ready tells whether it answers again after a start.
	ready func() bool
	// cpus is its CPU set (nil: every CPU), kept across restarts.
	cpus []int
	// cred is the user it runs as (nil: the harness's): a PostgreSQL
	// server refuses root.
	cred *syscall.Credential
}

// startProc starts bin with the harness's environment plus env ("NAME=value").
func startProc(name, bin string, args []string, logPath string, env ...string) (*proc, error) {
	return startProcOn(nil, name, bin, args, logPath, env...)
}

// startProcOn is startProc on a CPU set (nil: every CPU).
func startProcOn(cpus []int, name, bin string, args []string, logPath string, env ...string) (*proc, error) {
	return launch(&proc{name: name, logPath: logPath, bin: bin, args: args, env: env, cpus: cpus})
}

// launch starts p from its bin, args, env, CPU set and user.
func launch(p *proc) (*proc, error) {
	// Appending: a restarted process's log follows its first life's.
	out, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(p.bin, p.args...)
	cmd.Stdout, cmd.Stderr = out, out
	if len(p.env) > 0 {
		cmd.Env = append(os.Environ(), p.env...)
	}
	// Pdeathsig: if the harness is killed outright, the kernel ends the node
	// too (Go sets it after a change of user, which would clear it).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: p.cred}
	if err := startPinned(cmd, p.cpus); err != nil {
		out.Close()
		return nil, fmt.Errorf("start %s: %v", p.name, err)
	}
	p.cmd, p.out, p.done = cmd, out, make(chan struct{})
	go func() {
		p.err = cmd.Wait()
		out.Close()
		close(p.done)
	}()
	return p, nil
}

// startPinned starts cmd on cpus. A child inherits the CPU mask of the
// thread that forks it, and os/exec forks from the calling goroutine's
// thread: so this goroutine holds its thread, narrows that thread's mask,
// starts the child and restores the mask. Threads the child makes later
// inherit the set, so the whole process stays on it.
func startPinned(cmd *exec.Cmd, cpus []int) error {
	if len(cpus) == 0 {
		return cmd.Start()
	}
	runtime.LockOSThread()
	var old, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("reading this thread's CPU set: %v", err)
	}
	for _, c := range cpus {
		set.Set(c)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("CPU set %v: %v", cpus, err)
	}
	err := cmd.Start()
	if rerr := unix.SchedSetaffinity(0, &old); rerr != nil {
		// Left locked: the thread ends with this goroutine instead of
		// running others on the narrowed set.
		return errors.Join(err, fmt.Errorf("restoring this thread's CPU set: %v", rerr))
	}
	runtime.UnlockOSThread()
	return err
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM to the group, then SIGKILL after grace.
func (p *proc) stop(grace time.Duration) {
	if p.exited() {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

// failure describes an early exit: the death, and a hint when the log
// says why.
func (p *proc) failure() error {
	d := p.death(8)
	err := error(&backend.DeadError{Deaths: []backend.Death{d}})
	if strings.Contains(strings.Join(d.LogTail, "\n"), "address already in use") {
		err = fmt.Errorf("%w\n  (a port was taken by another program between allocation and start; rerun)", err)
	}
	return err
}

// death is how the exited process ended: its exit code, or the signal that
// killed it, and the last n lines of its log.
func (p *proc) death(n int) backend.Death {
	d := backend.Death{Actor: p.name, Reason: "exited", ExitCode: -1, LogTail: backend.TailLines(lines.LogTail(p.logPath, n))}
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		d.ExitCode = 0
	case errors.As(p.err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			d.Signal = backend.SignalName(ws.Signal())
		} else {
			d.ExitCode = ee.ExitCode()
		}
	default:
		d.Reason = "exited: " + p.err.Error()
	}
	return d
}

// waitReady polls ready() until it holds, the process exits, or ctx ends.
// Polling is bounded by ctx; there is no stream to wait on before RPC is up.
func (p *proc) waitReady(ctx context.Context, what string, ready func() bool) error {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		if ready() {
			return nil
		}
		select {
		case <-p.done:
			return p.failure()
		case <-ctx.Done():
			return fmt.Errorf("%s %s did not start in time (%v; raise --start-timeout on a slow machine); see %s; last log lines:\n%s", what, p.name, context.Cause(ctx), p.logPath, lines.LogTail(p.logPath, 8))
		case <-t.C:
		}
	}
}

func tcpOpen(hostPort string) bool {
	c, err := net.DialTimeout("tcp", hostPort, 200*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// ports hands out free loopback ports, never the same one twice per process.
type ports struct {
	mu   sync.Mutex
	used map[int]bool
}

var allocated = &ports{used: map[int]bool{}}

func (ps *ports) next() (int, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for i := 0; i < 50; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("allocating a loopback port: %v", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !ps.used[port] {
			ps.used[port] = true
			return port, nil
		}
	}
	return 0, errors.New("allocating a loopback port: no free port found")
}

func hostPort(port int) string { return fmt.Sprintf("127.0.0.1:%d", port) }
