package compose

import (
	"context"
	"os"
	"strings"
	"sync"

	"github.com/docker/docker/api/types/container"
	"github.com/lnbench/lnbench/internal/dockerapi"
)

// engine is what the compose backend asks the Docker engine beyond the
// compose command line: which containers, their state, addresses, ports
// and labels as typed values, their logs, and pause and unpause: *dockerapi.Engine, the
// engine's API asked in-process as the swarm backend asks it (over the
// CLI's dial-stdio for an engine reached by tcp or ssh). Tests use a fake.
type engine interface {
	// Containers returns the ids of the containers matching q.
	Containers(ctx context.Context, q dockerapi.ContainerQuery) ([]string, error)
	// Inspect returns one document per id, in order.
	Inspect(ctx context.Context, ids ...string) ([]container.InspectResponse, error)
	// Logs returns the last tail lines of a container's stdout and stderr.
	Logs(ctx context.Context, id string, tail int) (string, error)
	// Pause freezes a container's processes; Unpause thaws them.
	Pause(ctx context.Context, id string) error
	Unpause(ctx context.Context, id string) error
}

// projectQuery is the containers of a compose project (and service, when
// given), stopped ones included.
func projectQuery(project, service string) dockerapi.ContainerQuery {
	q := dockerapi.ContainerQuery{Labels: []string{"com.docker.compose.project=" + project}, All: true}
	if service != "" {
		q.Labels = append(q.Labels, "com.docker.compose.service="+service)
	}
	return q
}

// newEngine is the engine the docker CLI is set to reach: its unix socket
// dialed directly ($DOCKER_HOST, else the current context's), any other
// (tcp with the CLI's TLS settings, ssh) through the CLI's dial-stdio.
func newEngine(ctx context.Context) engine {
	if sock := socketOf(ctx); sock != "" {
		return dockerapi.NewEngine("unix://" + sock)
	}
	return dockerapi.NewEngine(dockerapi.CLIHost)
}

// socketOf is the unix socket the docker CLI talks to: $DOCKER_HOST, else
// the current context's endpoint; "" when it is not a unix socket.
func socketOf(ctx context.Context) string {
	host := os.Getenv("DOCKER_HOST")
	if host == "" {
		out, err := docker(ctx, "context", "inspect", "--format", "{{.Endpoints.docker.Host}}")
		if err != nil {
			return ""
		}
		host = strings.TrimSpace(out)
	}
	if path, ok := strings.CutPrefix(host, "unix://"); ok {
		return path
	}
	return ""
}

// lazyEngine picks its engine at the first question (the backend's
// constructor does not ask the engine anything).
type lazyEngine struct {
	once sync.Once
	e    engine
}

func (l *lazyEngine) get(ctx context.Context) engine {
	l.once.Do(func() {
		if l.e == nil {
			l.e = newEngine(ctx)
		}
	})
	return l.e
}
