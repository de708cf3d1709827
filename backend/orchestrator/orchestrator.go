// Package orchestrator is the container core the compose and swarm
// backends share. Each puts a network's services on Docker engines its own
// way (compose on one engine, swarm over a cluster) behind the small
// Orchestrator interface; the rest is done once here over it: the wait
// until a service's container is ready, failing early with its death when
// it stops, and the log tail that names why.
package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/internal/wait"
)

// Task is a service's container as its orchestrator finds it now.
type Task struct {
	// ID is the orchestrator's id of the task (swarm's task id; compose
	// has no tasks and leaves it ""); Container the container's id, ""
	// until one exists.
	ID, Container string
	// Host is the engine it runs on (a DOCKER_HOST; "" is the local one).
	Host string
	// Node names where it runs, for messages (a swarm node); "" on one engine.
	Node string
	// State is the orchestrator's word for it ("running", "exited",
	// "starting", "failed", …) and Err the orchestrator's error, if any.
	State, Err string
	// Running: the container runs, so readiness checks may start. Ended:
	// it stopped for good, a death rather than a start still under way.
	Running, Ended bool
	// Ports maps a container port to the host port it is published on.
	Ports map[int]int
}

// Orchestrator places the services of one network on Docker engines.
// Teardown is not here: compose's (down, then a label sweep of one engine)
// and swarm's (stack rm, then a bounded sweep of every engine, naming the
// lost ones) share nothing but the word.
type Orchestrator interface {
	// Deploy starts a service (creating its container or task).
	Deploy(ctx context.Context, service string) error
	// Locate finds a service's container now: the zero Task when it has
	// none yet. An error is taken as "not yet" unless it is Permanent.
	Locate(ctx context.Context, service string) (Task, error)
	// Logs returns the last n lines of a task's container output.
	Logs(ctx context.Context, t Task, n int) (string, error)
	// Death describes a service whose task ended, with the last n lines
	// of its output.
	Death(ctx context.Context, service string, t Task, n int) backend.Death
}

// permanent marks a Locate error that waiting will not cure.
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

// Permanent marks err as one that ends a wait (a task placed where no
// engine is known); other Locate errors are retried.
func Permanent(err error) error { return permanent{err} }

// Wait is how long and how often a start is waited on.
type Wait struct {
	// Timeout bounds the whole wait.
	Timeout time.Duration
	// Every is the poll interval: ready is asked this often.
	Every time.Duration
	// Relocate is how often a running container is located again (to
	// see it die); asking the engine costs more than a readiness check
	// that stats a file. 0 locates at every poll.
	Relocate time.Duration
}

// Start deploys a service and waits until it is ready (Wait.Ready).
func (w Wait) Start(ctx context.Context, o Orchestrator, what, service string, ready func(Task) bool) (Task, error) {
	if err := o.Deploy(ctx, service); err != nil {
		return Task{}, fmt.Errorf("starting %s: %w", service, err)
	}
	return w.Ready(ctx, o, what, service, ready)
}

// Ready polls until ready(task) holds for the service's running
// container. It fails early with a *backend.DeadError when the task ends,
// and at the timeout with the task's state and its last log lines.
func (w Wait) Ready(ctx context.Context, o Orchestrator, what, service string, ready func(Task) bool) (Task, error) {
	wctx, cancel := context.WithTimeoutCause(ctx, w.Timeout, fmt.Errorf("start timeout %v", w.Timeout))
	defer cancel()
	var last Task
	var located time.Time
	err := wait.Poll(wctx, w.Every, func() (bool, error) {
		if !last.Running || time.Since(located) >= w.Relocate {
			t, err := o.Locate(wctx, service)
			if err != nil {
				var p permanent
				if errors.As(err, &p) {
					return false, p.error
				}
				return false, nil
			}
			last, located = t, time.Now()
		}
		if last.Ended {
			dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer dcancel()
			return false, &backend.DeadError{Deaths: []backend.Death{o.Death(dctx, service, last, 15)}}
		}
		return last.Running && ready(last), nil
	})
	switch {
	case ctx.Err() != nil:
		return last, ctx.Err()
	case err == nil || wctx.Err() == nil || err != context.Cause(wctx):
		return last, err // ready, dead or placed beyond reach
	}
	var state string
	if last.Node != "" {
		state = fmt.Sprintf("; task state %q %s on %q", last.State, last.Err, last.Node)
	}
	lctx, lcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer lcancel()
	return last, fmt.Errorf("%s %s did not start in time (%v%s); last log lines:\n%s", what, service, context.Cause(wctx), state, Tail(lctx, o, last, 15))
}

// Tail is the last n lines of a task's container output, indented for a
// message; it says so when there is no container or no output.
func Tail(ctx context.Context, o Orchestrator, t Task, n int) string {
	if t.Container == "" {
		return "  (no container)"
	}
	out, err := o.Logs(ctx, t, n)
	if err != nil && out == "" {
		out = err.Error()
	}
	s := strings.TrimRight(out, "\n")
	if s == "" {
		return "  (no output)"
	}
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
