package swarm

import (
	"context"

	"github.com/lnbench/lnbench/backend/orchestrator"
)

// The swarm backend as an orchestrator.Orchestrator: a service is a task
// of the stack, its container on the engine the task was placed on.
var _ orchestrator.Orchestrator = (*Backend)(nil)

// Deploy adds a service to the stack and deploys it through the manager.
func (b *Backend) Deploy(ctx context.Context, service string) error {
	return b.deploy(ctx, service)
}

// Locate reads the service's newest task from the manager, with the
// engine its container runs on; a task placed on a swarm node that is not
// in the engines file ends the wait.
func (b *Backend) Locate(ctx context.Context, service string) (orchestrator.Task, error) {
	t, err := b.taskOf(ctx, service)
	if err != nil || t.ID == "" || !t.Running {
		return t, err
	}
	e, err := b.engineOf(t)
	if err != nil {
		return t, orchestrator.Permanent(err)
	}
	t.Host = e.Host
	return t, nil
}

// Logs is the last n lines of a task's container output, from its engine.
func (b *Backend) Logs(ctx context.Context, t orchestrator.Task, n int) (string, error) {
	e, err := b.engineOf(t)
	if err != nil {
		return "", err
	}
	return b.opts.Cluster.api(e.Host).Logs(ctx, t.Container, n)
}
