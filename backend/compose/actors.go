package compose

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/usage"
)

// Actors lists the project's running containers: one `docker ps` and one
// `docker inspect` for all of them. PID and CgroupPath are set only when the
// engine shares this host's PID namespace (checked against /proc), so the
// collector falls back to the engine's stats API elsewhere. Then, with
// the containers' processes visible, the docker-proxy processes behind
// their published ports are one more actor (backend.ProxyActor).
//
// Why docker-proxy is measured, and as part of the harness's share: the
// ports are published only for the harness (btcd's RPC for mining, the
// sampler's control port, and a node's RPC where this host cannot reach
// the container's address: harnessHost); the nodes reach each other and
// btcd by name over the compose network, never through a proxy. So every
// byte a proxy copies is a harness call, and its CPU (0.068 cores at c=40
// on a 2-core host while it carried the payments' calls) is what the
// harness's control traffic costs the machine on this backend: left out,
// it counted as "other processes" in the busy-machine guard and in no
// actor's figures. It is its own row so the harness process's figure
// stays comparable with the local backend's (no proxy there).
func (b *Backend) Actors(ctx context.Context) ([]backend.Actor, error) {
	out, err := docker(ctx, "ps", "-q", "--no-trunc", "--filter", "label=com.docker.compose.project="+b.project)
	if err != nil {
		return nil, err
	}
	ids := strings.Fields(out)
	if len(ids) == 0 {
		return nil, nil
	}
	args := append([]string{"inspect", "--format", `{{.Id}} {{.State.Pid}} {{index .Config.Labels "com.docker.compose.service"}} ` + portsFormat}, ids...)
	out, err = docker(ctx, args...)
	if err != nil {
		return nil, err
	}
	actors, ports, err := b.parseActors(out)
	if err != nil {
		return nil, err
	}
	return withProxy(actors, backend.ProxyPIDs("/proc", ports)), nil
}

// portsFormat prints a container's published host ports as "ports=P,P,".
const portsFormat = `ports={{range $p, $b := .NetworkSettings.Ports}}{{range $b}}{{.HostPort}},{{end}}{{end}}`

// withProxy adds the proxy actor when the containers' processes are
// visible here (else neither are the proxies': they run beside the engine)
// and proxies were found.
func withProxy(actors []backend.Actor, pids []int) []backend.Actor {
	visible := false
	for _, a := range actors {
		visible = visible || a.PID > 0
	}
	if !visible || len(pids) == 0 {
		return actors
	}
	return append(actors, backend.Actor{Name: backend.ProxyActor, Role: usage.RoleProxy, PIDs: pids})
}

// parseActors reads the inspect lines into actors and the set of their
// published host ports.
func (b *Backend) parseActors(inspect string) ([]backend.Actor, map[int]bool, error) {
	var actors []backend.Actor
	ports := map[int]bool{}
	for _, line := range strings.Split(strings.TrimSpace(inspect), "\n") {
		f := strings.Fields(line)
		if len(f) == 4 && strings.HasPrefix(f[3], "ports=") {
			for _, p := range strings.Split(strings.TrimPrefix(f[3], "ports="), ",") {
				if n, err := strconv.Atoi(p); err == nil && n > 0 {
					ports[n] = true
				}
			}
			f = f[:3]
		}
		if len(f) != 3 {
			return nil, nil, fmt.Errorf("docker inspect: unexpected %q", line)
		}
		pid, _ := strconv.Atoi(f[1])
		a := backend.Actor{Name: f[2], Role: usage.RoleNode, ContainerID: f[0], DataDir: filepath.Join(b.opts.WorkDir, f[2])}
		switch f[2] {
		case composefile.ChainService:
			a.Role = usage.RoleChain
		case composefile.SamplerService:
			a.Role, a.DataDir = usage.RoleSampler, ""
		}
		if cg := backend.CgroupOf(pid, a.ContainerID); cg != "" {
			a.PID, a.CgroupPath = pid, cg
		}
		actors = append(actors, a)
	}
	return actors, ports, nil
}
