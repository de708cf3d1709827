package compose

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
	"github.com/lnbench/lnbench/internal/dockerapi"
)

// engine is what the compose backend asks the Docker engine beyond the
// compose command line: which containers, their state, addresses, ports
// and labels as typed values, and their logs. apiEngine asks the engine's
// API on its unix socket, in-process; cliEngine runs the docker CLI (an
// engine reached over tcp or ssh) and reads `docker inspect`'s JSON, the
// same document. Tests use a fake.
//
// The Docker Go client (github.com/docker/docker/client) was not used: it
// pulls OpenTelemetry and a newer gRPC (1.79 → 1.83, `go mod tidy`,
// 2026-11-26) into the harness whose gRPC calls are measured. The API's
// types come from the same module, without those; internal/dockerapi
// makes the connection.
type engine interface {
	// list returns the ids of the containers matching q.
	list(ctx context.Context, q listQuery) ([]string, error)
	// inspect returns one document per id, in order.
	inspect(ctx context.Context, ids ...string) ([]container.InspectResponse, error)
	// logs returns the last tail lines of a container's stdout and stderr.
	logs(ctx context.Context, id string, tail int) (string, error)
}

// listQuery selects containers: every label (key=value) must match;
// status ("exited", …) filters when set; all includes stopped ones.
type listQuery struct {
	labels []string
	status string
	all    bool
}

// projectQuery is the containers of a compose project (and service, when
// given), stopped ones included.
func projectQuery(project, service string) listQuery {
	q := listQuery{labels: []string{"com.docker.compose.project=" + project}, all: true}
	if service != "" {
		q.labels = append(q.labels, "com.docker.compose.service="+service)
	}
	return q
}

// newEngine asks the API when the docker CLI's engine is on a unix socket
// ($DOCKER_HOST, else the current context), else the CLI.
func newEngine(ctx context.Context) engine {
	if sock := socketOf(ctx); sock != "" {
		return apiEngine{client: dockerapi.Client("unix://" + sock)}
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

type apiEngine struct{ client *http.Client }

func (a apiEngine) get(ctx context.Context, path string, query url.Values) ([]byte, error) {
	u := "http://engine" + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		var msg struct{ Message string }
		_ = json.Unmarshal(body, &msg)
		return nil, fmt.Errorf("engine: GET %s: %s %s", path, resp.Status, msg.Message)
	}
	return body, nil
}

func (a apiEngine) list(ctx context.Context, q listQuery) ([]string, error) {
	filters := map[string][]string{"label": q.labels}
	if q.status != "" {
		filters["status"] = []string{q.status}
	}
	f, _ := json.Marshal(filters)
	v := url.Values{"filters": {string(f)}}
	if q.all {
		v.Set("all", "1")
	}
	body, err := a.get(ctx, "/containers/json", v)
	if err != nil {
		return nil, err
	}
	var list []container.Summary
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("engine: containers: %v", err)
	}
	ids := make([]string, len(list))
	for i, c := range list {
		ids[i] = c.ID
	}
	return ids, nil
}

func (a apiEngine) inspect(ctx context.Context, ids ...string) ([]container.InspectResponse, error) {
	out := make([]container.InspectResponse, len(ids))
	for i, id := range ids {
		body, err := a.get(ctx, "/containers/"+url.PathEscape(id)+"/json", nil)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(body, &out[i]); err != nil {
			return nil, fmt.Errorf("engine: container %s: %v", id, err)
		}
	}
	return out, nil
}

func (a apiEngine) logs(ctx context.Context, id string, tail int) (string, error) {
	body, err := a.get(ctx, "/containers/"+url.PathEscape(id)+"/logs",
		url.Values{"stdout": {"1"}, "stderr": {"1"}, "tail": {strconv.Itoa(tail)}})
	if err != nil {
		return "", err
	}
	// Without a TTY the engine multiplexes stdout and stderr in frames.
	var both bytes.Buffer
	if _, err := stdcopy.StdCopy(&both, &both, bytes.NewReader(body)); err != nil {
		return string(body), nil // a TTY container: the plain stream
	}
	return both.String(), nil
}

type cliEngine struct{}

func (cliEngine) list(ctx context.Context, q listQuery) ([]string, error) {
	args := []string{"ps", "-q", "--no-trunc"}
	if q.all {
		args = append(args, "-a")
	}
	for _, l := range q.labels {
		args = append(args, "--filter", "label="+l)
	}
	if q.status != "" {
		args = append(args, "--filter", "status="+q.status)
	}
	out, err := docker(ctx, args...)
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

func (cliEngine) inspect(ctx context.Context, ids ...string) ([]container.InspectResponse, error) {
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

func (cliEngine) logs(ctx context.Context, id string, tail int) (string, error) {
	out, err := exec.CommandContext(ctx, "docker", "logs", "--tail", strconv.Itoa(tail), id).CombinedOutput()
	return string(out), err
}
