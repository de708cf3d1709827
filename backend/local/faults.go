package local

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/backend/driver"
)

// The local backend injects faults with signals to the actor's process
// group; it cannot impair a network (every process shares loopback).
var _ backend.FaultInjector = (*Backend)(nil)

func (b *Backend) proc(name string) (*proc, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p, ok := b.procs[name]
	if !ok {
		return nil, fmt.Errorf("%s: no such actor in this run", name)
	}
	return p, nil
}

// signal sends sig to the actor's process group.
func (b *Backend) signal(name string, sig syscall.Signal) error {
	p, err := b.proc(name)
	if err != nil {
		return err
	}
	if p.exited() {
		return fmt.Errorf("%s: not running (%v)", name, p.err)
	}
	if err := syscall.Kill(-p.cmd.Process.Pid, sig); err != nil {
		return fmt.Errorf("%s: %v: %v", name, sig, err)
	}
	return nil
}

// Kill ends the actor at once, as a crash would, and waits until it is gone.
func (b *Backend) Kill(ctx context.Context, name string) error {
	if err := b.signal(name, syscall.SIGKILL); err != nil {
		return err
	}
	p, _ := b.proc(name)
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Restart stops the actor (SIGTERM, SIGKILL after 15 s; a paused one is
// thawed first so it can shut down), starts the same command on the same
// data dir and waits until it answers. Ports are the same as before.
func (b *Backend) Restart(ctx context.Context, name string) (backend.NodeEndpoint, error) {
	old, err := b.proc(name)
	if err != nil {
		return backend.NodeEndpoint{}, err
	}
	if !old.exited() {
		_ = syscall.Kill(-old.cmd.Process.Pid, syscall.SIGCONT)
	}
	old.stop(15 * time.Second)
	p, err := launch(&proc{name: name, logPath: old.logPath, bin: old.bin, args: old.args, env: old.env, cpus: old.cpus, cred: old.cred})
	if err != nil {
		return backend.NodeEndpoint{}, err
	}
	p.dataDir, p.pprofHost, p.ready = old.dataDir, old.pprofHost, old.ready
	b.mu.Lock()
	b.procs[name] = p // same place in b.order: it is the same actor
	ep := b.eps[name]
	b.mu.Unlock()
	wctx, cancel := context.WithTimeoutCause(ctx, b.opts.StartTimeout, fmt.Errorf("start timeout %v", b.opts.StartTimeout))
	defer cancel()
	if err := p.waitReady(wctx, "restarted "+name, p.ready); err != nil {
		return backend.NodeEndpoint{}, err
	}
	return ep, nil
}

// Pause stops every process of the actor (SIGSTOP to its group).
func (b *Backend) Pause(ctx context.Context, name string) error {
	return b.signal(name, syscall.SIGSTOP)
}

// Resume continues them (SIGCONT).
func (b *Backend) Resume(ctx context.Context, name string) error {
	return b.signal(name, syscall.SIGCONT)
}

// Impair is refused: processes on one loopback have no interface of their own.
func (b *Backend) Impair(ctx context.Context, name, peer string, imp backend.Impairment) (backend.Applied, error) {
	return backend.Applied{}, noImpairments("impairing " + name)
}

// Clear is refused like Impair.
func (b *Backend) Clear(ctx context.Context, name, peer string) (time.Time, error) {
	return time.Time{}, noImpairments("clearing an impairment of " + name)
}

// noImpairments is the refusal of an impairment, naming the backends that can.
func noImpairments(fault string) error {
	return backend.ErrNoImpairments{Fault: fault, Fix: driver.UseOneOf(func(c driver.Caps) bool { return c.Impairments })}
}
