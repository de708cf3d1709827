package compose

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/backend/orchestrator"
)

// The compose backend as an orchestrator.Orchestrator: a service is one
// container of the project on the one engine.
var _ orchestrator.Orchestrator = (*Backend)(nil)

// waiting is how starts are waited on: a readiness check stats a bind
// mount (cheap) every 0.1 s, the engine is asked again every 0.5 s.
func (b *Backend) waiting() orchestrator.Wait {
	return orchestrator.Wait{Timeout: b.opts.StartTimeout, Every: 100 * time.Millisecond, Relocate: 500 * time.Millisecond}
}

// Deploy starts one service of the file (`up -d --no-deps`).
func (b *Backend) Deploy(ctx context.Context, service string) error {
	if _, err := b.compose(ctx, "up", "-d", "--no-deps", service); err != nil {
		return err
	}
	b.markStarted(service)
	return nil
}

// Locate finds a service's container, running or not, and the loopback
// ports it is published on. A port published beyond 127.0.0.1 is an
// error that ends the wait.
func (b *Backend) Locate(ctx context.Context, service string) (orchestrator.Task, error) {
	id, err := b.containerID(ctx, service)
	if err != nil || id == "" {
		return orchestrator.Task{}, err
	}
	c, err := b.inspect1(ctx, id)
	if err != nil {
		return orchestrator.Task{}, err
	}
	if c.State == nil {
		return orchestrator.Task{}, fmt.Errorf("container %s: no state", id)
	}
	ports, err := loopbackPorts(c)
	if err != nil {
		return orchestrator.Task{}, orchestrator.Permanent(fmt.Errorf("%s: %v", service, err))
	}
	status := c.State.Status
	return orchestrator.Task{Container: id, State: status, Running: status == "running",
		Ended: status == "exited" || status == "dead", Ports: ports}, nil
}

// loopbackPorts maps each published container port to its host port,
// refusing any binding beyond 127.0.0.1.
func loopbackPorts(c container.InspectResponse) (map[int]int, error) {
	out := map[int]int{}
	if c.NetworkSettings == nil {
		return out, nil
	}
	for port, binds := range c.NetworkSettings.Ports {
		for _, hb := range binds {
			if hb.HostIP != "127.0.0.1" {
				return nil, fmt.Errorf("container port %s is published on %s, beyond loopback; only 127.0.0.1 is allowed", port, net.JoinHostPort(hb.HostIP, hb.HostPort))
			}
			p, err := strconv.Atoi(hb.HostPort)
			if err != nil || p <= 0 {
				return nil, fmt.Errorf("container port %s: bad host port %q", port, hb.HostPort)
			}
			out[port.Int()] = p
		}
	}
	return out, nil
}

// published is the loopback host:port of a task's container port; ""
// when it is not published (yet).
func published(t orchestrator.Task, port int) string {
	if p := t.Ports[port]; p > 0 {
		return net.JoinHostPort("127.0.0.1", strconv.Itoa(p))
	}
	return ""
}

// Logs is the last n lines of a container's stdout and stderr.
func (b *Backend) Logs(ctx context.Context, t orchestrator.Task, n int) (string, error) {
	return b.engine(ctx).Logs(ctx, t.Container, n)
}

// Death reads why a service's container stopped: its state, exit code,
// OOM flag and memory limit from the engine, and the last n log lines.
func (b *Backend) Death(ctx context.Context, service string, t orchestrator.Task, n int) backend.Death {
	d := backend.Death{Actor: service, Reason: "exited", ExitCode: -1}
	if c, err := b.inspect1(ctx, t.Container); err == nil && c.ContainerJSONBase != nil {
		d = backend.DeathOf(service, c.State, c.HostConfig)
	}
	d.LogTail = backend.TailLines(orchestrator.Tail(ctx, b, t, n))
	return d
}
