package swarm

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	dockerswarm "github.com/docker/docker/api/types/swarm"

	"github.com/lnbench/lnbench/backend/driver"
	"github.com/lnbench/lnbench/internal/dockerapi"
	"github.com/lnbench/lnbench/internal/dockercli"
	"github.com/lnbench/lnbench/internal/lines"
)

// Engine is one Docker engine of the swarm as the harness reaches it.
type Engine struct {
	// Name is the swarm node's hostname (`docker node ls`).
	Name string
	// Addr is the address the harness dials the engine's published ports on.
	Addr string
	// Host is the engine's DOCKER_HOST (unix://…, tcp://…, ssh://…).
	Host string
}

// EnginesEnv names the engines file when --swarm-engines is not given.
const EnginesEnv = driver.EnginesEnv

// DefaultEnginesFile is where the engines file is looked for: $LNBENCH_SWARM_ENGINES,
// else the file scripts/testbed-engines.sh writes ($LNBENCH_ENGINES_DIR or
// /var/lib/lnbench-engines, then /engines).
func DefaultEnginesFile() string {
	if f := os.Getenv(EnginesEnv); f != "" {
		return f
	}
	dir := os.Getenv("LNBENCH_ENGINES_DIR")
	if dir == "" {
		dir = "/var/lib/lnbench-engines"
	}
	return filepath.Join(dir, "engines")
}

// ReadEngines reads an engines file: one engine per line, "name address
// DOCKER_HOST" (the format scripts/testbed-engines.sh prints); blank lines
// and # comments are skipped.
func ReadEngines(path string) ([]Engine, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("swarm engines file %s does not exist: list one engine per line as \"hostname address DOCKER_HOST\" (scripts/testbed-engines.sh up 3 writes one) and pass it with --swarm-engines", path)
		}
		return nil, fmt.Errorf("swarm engines file: %v", err)
	}
	return ParseEngines(path, data)
}

// ParseEngines parses the content of an engines file.
func ParseEngines(path string, data []byte) ([]Engine, error) {
	var out []Engine
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = strings.TrimSpace(text[:i])
		}
		if text == "" {
			continue
		}
		f := strings.Fields(text)
		if len(f) != 3 {
			return nil, fmt.Errorf("swarm engines file %s line %d: %q: want \"hostname address DOCKER_HOST\", e.g. \"lnbe-1 198.18.0.11 unix:///var/lib/lnbench-engines/lnbe-1/docker.sock\"", path, line, text)
		}
		e := Engine{Name: f[0], Addr: f[1], Host: f[2]}
		if net.ParseIP(e.Addr) == nil {
			return nil, fmt.Errorf("swarm engines file %s line %d: address %q is not an IP address (the harness dials published ports on it)", path, line, e.Addr)
		}
		if !strings.Contains(e.Host, "://") {
			return nil, fmt.Errorf("swarm engines file %s line %d: DOCKER_HOST %q: want unix://, tcp:// or ssh://", path, line, e.Host)
		}
		if seen[e.Name] {
			return nil, fmt.Errorf("swarm engines file %s line %d: engine %s is listed twice", path, line, e.Name)
		}
		seen[e.Name] = true
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("swarm engines file %s lists no engine", path)
	}
	return out, nil
}

// Cluster is a checked swarm: its engines, the manager the harness deploys
// through, and the Ready nodes in hostname order.
type Cluster struct {
	Engines []Engine
	Manager Engine
	Nodes   []string
	// NodeLabels are each node's labels, for placement by label.
	NodeLabels map[string]map[string]string
	// Run runs the docker CLI against one engine; nil is the docker
	// command itself (tests put a fake here).
	Run Runner
	// API is the typed API of the engine at host (its DOCKER_HOST); nil
	// is dockerapi.NewEngine (tests put a fake here).
	API func(host string) EngineAPI
}

// EngineAPI is what the backend asks an engine's API as typed documents:
// the manager for the stack's services and tasks and the swarm's nodes,
// the engine running a task for its container (the compose backend reads
// the same documents).
type EngineAPI interface {
	Inspect(ctx context.Context, ids ...string) ([]container.InspectResponse, error)
	Logs(ctx context.Context, id string, tail int) (string, error)
	Services(ctx context.Context, labels ...string) ([]dockerswarm.Service, error)
	Tasks(ctx context.Context, serviceIDs ...string) ([]dockerswarm.Task, error)
	Nodes(ctx context.Context) ([]dockerswarm.Node, error)
}

func (c Cluster) api(host string) EngineAPI {
	if c.API != nil {
		return c.API(host)
	}
	return dockerapi.NewEngine(host)
}

// Runner runs one docker command against the engine at host (its
// DOCKER_HOST) with env added to the environment, and returns its stdout
// trimmed; the error carries the command and the last lines of stderr.
type Runner func(ctx context.Context, host string, env []string, args ...string) (string, error)

func (c Cluster) docker(ctx context.Context, host string, args ...string) (string, error) {
	return c.dockerEnv(ctx, host, nil, args...)
}

func (c Cluster) dockerEnv(ctx context.Context, host string, env []string, args ...string) (string, error) {
	if c.Run != nil {
		return c.Run(ctx, host, env, args...)
	}
	return dockerEnv(ctx, host, env, args...)
}

// Engine returns the engine of a swarm node's hostname.
func (c Cluster) Engine(name string) (Engine, bool) {
	for _, e := range c.Engines {
		if e.Name == name {
			return e, true
		}
	}
	return Engine{}, false
}

// Check asks every engine whether it answers and is in a swarm, finds a
// manager and reads the swarm's nodes: each Ready node must be in the
// engines file. Errors are one line naming the engine and the fix.
func Check(ctx context.Context, engines []Engine) (Cluster, error) {
	c := Cluster{Engines: engines, NodeLabels: map[string]map[string]string{}}
	for _, e := range engines {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		out, err := docker(cctx, e.Host, "info", "--format", "{{.Swarm.LocalNodeState}} {{.Swarm.ControlAvailable}}")
		cancel()
		if err != nil {
			return c, fmt.Errorf("swarm engine %s (%s) does not answer: %s; start it or fix its DOCKER_HOST in the engines file", e.Name, e.Host, lines.First(err.Error()))
		}
		f := strings.Fields(out)
		if len(f) != 2 || f[0] != "active" {
			return c, fmt.Errorf("swarm engine %s (%s) is not in a swarm (state %q); join it (docker swarm join) or remove it from the engines file", e.Name, e.Host, out)
		}
		if f[1] == "true" && c.Manager.Host == "" {
			c.Manager = e
		}
	}
	if c.Manager.Host == "" {
		return c, fmt.Errorf("no engine of the engines file is a swarm manager; list a manager (docker node ls works on it)")
	}
	out, err := docker(ctx, c.Manager.Host, "node", "ls", "--format", "{{.Hostname}} {{.Status}} {{.ID}}")
	if err != nil {
		return c, fmt.Errorf("swarm manager %s: docker node ls: %s", c.Manager.Name, lines.First(err.Error()))
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[1] != "Ready" {
			continue
		}
		if _, ok := c.Engine(f[0]); !ok {
			return c, fmt.Errorf("swarm node %s is Ready but not in the engines file; add a line \"%s ADDRESS DOCKER_HOST\" (tasks may be placed there)", f[0], f[0])
		}
		labels, err := docker(ctx, c.Manager.Host, "node", "inspect", "--format", "{{range $k, $v := .Spec.Labels}}{{$k}}={{$v}}\n{{end}}", f[2])
		if err != nil {
			return c, fmt.Errorf("swarm manager %s: docker node inspect %s: %s", c.Manager.Name, f[0], lines.First(err.Error()))
		}
		c.NodeLabels[f[0]] = parseLabels(labels)
		c.Nodes = append(c.Nodes, f[0])
	}
	if len(c.Nodes) == 0 {
		return c, fmt.Errorf("swarm manager %s lists no Ready node", c.Manager.Name)
	}
	sort.Strings(c.Nodes)
	return c, nil
}

func parseLabels(s string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			out[k] = v
		}
	}
	return out
}

// docker runs the docker CLI against one engine and returns trimmed
// stdout; the error carries stderr's last lines.
func docker(ctx context.Context, host string, args ...string) (string, error) {
	return dockerEnv(ctx, host, nil, args...)
}

func dockerEnv(ctx context.Context, host string, env []string, args ...string) (string, error) {
	return dockercli.Run(ctx, env, nil, "docker", append([]string{"-H", host}, args...)...)
}
