package compose

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/docker/docker/api/types/container"
	"github.com/lnbench/lnbench/internal/dockerapi"
)

// engine is what the compose backend asks the Docker engine beyond the
// compose command line: which containers, their state, addresses, ports
// and labels as typed values, and their logs. *dockerapi.Engine asks the
// engine's API in-process, as the swarm backend does; cliEngine runs the
// docker CLI (an engine reached over tcp or ssh, with the CLI's settings)
// and reads `docker inspect`'s JSON, the same document. Tests use a fake.
type engine interface {
	// Containers returns the ids of the containers matching q.
	Containers(ctx context.Context, q dockerapi.ContainerQuery) ([]string, error)
	// Inspect returns one document per id, in order.
	Inspect(ctx context.Context, ids ...string) ([]container.InspectResponse, error)
	// Logs returns the last tail lines of a container's stdout and stderr.
	Logs(ctx context.Context, id string, tail int) (string, error)
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

// newEngine asks the API when the docker CLI's engine is on a unix socket
// ($DOCKER_HOST, else the current context), else the CLI.
func newEngine(ctx context.Context) engine {
	if sock := socketOf(ctx); sock != "" {
		return dockerapi.NewEngine("unix://" + sock)
	}
	return cliEngine{}
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

type cliEngine struct{}

func (cliEngine) Containers(ctx context.Context, q dockerapi.ContainerQuery) ([]string, error) {
	args := []string{"ps", "-q", "--no-trunc"}
	if q.All {
		args = append(args, "-a")
	}
	for _, l := range q.Labels {
		args = append(args, "--filter", "label="+l)
	}
	if q.Status != "" {
		args = append(args, "--filter", "status="+q.Status)
	}
	out, err := docker(ctx, args...)
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

func (cliEngine) Inspect(ctx context.Context, ids ...string) ([]container.InspectResponse, error) {
	out, err := docker(ctx, append([]string{"inspect", "--type", "container"}, ids...)...)
	if err != nil {
		return nil, err
	}
	var docs []container.InspectResponse
	if err := json.Unmarshal([]byte(out), &docs); err != nil {
		return nil, fmt.Errorf("docker inspect: %v", err)
	}
	if len(docs) != len(ids) {
		return nil, fmt.Errorf("docker inspect: %d documents for %d containers", len(docs), len(ids))
	}
	return docs, nil
}

func (cliEngine) Logs(ctx context.Context, id string, tail int) (string, error) {
	out, err := exec.CommandContext(ctx, "docker", "logs", "--tail", strconv.Itoa(tail), id).CombinedOutput()
	return string(out), err
}
