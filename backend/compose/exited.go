package compose

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// exitedProbe answers the watchdog's question (has any container of the
// project exited?) from the engine's API on its unix socket, in-process:
// the `docker ps` it replaces started a CLI process every 3 s, whose CPU
// (and the harness's fork and pipes) landed beside the nodes. Engines the
// CLI reaches another way (tcp, ssh) keep the CLI.
type exitedProbe struct {
	once   sync.Once
	client *http.Client // nil: use the CLI
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

func (p *exitedProbe) init(ctx context.Context) {
	p.once.Do(func() {
		sock := socketOf(ctx)
		if sock == "" {
			return
		}
		p.client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, "unix", sock)
			}}}
	})
}

// anyExited tells whether a container of project has exited; an error
// (no socket, the engine refused) means the caller should ask the CLI.
func (p *exitedProbe) anyExited(ctx context.Context, project string) (bool, error) {
	p.init(ctx)
	if p.client == nil {
		return false, fmt.Errorf("the engine is not on a unix socket")
	}
	filters, _ := json.Marshal(map[string][]string{
		"label": {"com.docker.compose.project=" + project}, "status": {"exited"}})
	req, err := http.NewRequestWithContext(ctx, "GET", "http://engine/containers/json?all=1&filters="+url.QueryEscape(string(filters)), nil)
	if err != nil {
		return false, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("engine: %s", resp.Status)
	}
	var list []struct {
		ID string `json:"Id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return false, fmt.Errorf("engine: %v", err)
	}
	return len(list) > 0, nil
}
