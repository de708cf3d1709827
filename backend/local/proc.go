package local

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lnbench/lnbench/backend"
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
}

// startProc starts bin with the harness's environment plus env ("NAME=value").
func startProc(name, bin string, args []string, logPath string, env ...string) (*proc, error) {
	// Appending: a restarted process's log follows its first life's.
	out, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	// Pdeathsig: if the harness is killed outright, the kernel ends the node too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("start %s: %v", name, err)
	}
	p := &proc{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{}), out: out, bin: bin, args: args, env: env}
	go func() {
		p.err = cmd.Wait()
		out.Close()
		close(p.done)
	}()
	return p, nil
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
	d := backend.Death{Actor: p.name, Reason: "exited", ExitCode: -1, LogTail: backend.TailLines(logTail(p.logPath, n))}
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

func logTail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(no log)"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
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
			return fmt.Errorf("%s %s did not start in time (%v; raise --start-timeout on a slow machine); see %s; last log lines:\n%s", what, p.name, context.Cause(ctx), p.logPath, logTail(p.logPath, 8))
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
