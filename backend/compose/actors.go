package compose

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/docker/docker/api/types/container"
	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/dbserver/postgres"
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
	q := projectQuery(b.project, "")
	q.All = false // running ones
	ids, err := b.engine(ctx).Containers(ctx, q)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	docs, err := b.engine(ctx).Inspect(ctx, ids...)
	if err != nil {
		return nil, err
	}
	actors, ports, err := b.actorsOf(docs)
	if err != nil {
		return nil, err
	}
	return withProxy(actors, backend.ProxyPIDs("/proc", ports)), nil
}

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

// actorsOf reads the containers' documents into actors and the set of
// their published host ports.
func (b *Backend) actorsOf(docs []container.InspectResponse) ([]backend.Actor, map[int]bool, error) {
	var actors []backend.Actor
	ports := map[int]bool{}
	for _, c := range docs {
		if c.ContainerJSONBase == nil || c.State == nil || c.Config == nil {
			return nil, nil, fmt.Errorf("engine: container %.12s: no state or config", c.ID)
		}
		if c.NetworkSettings != nil {
			for _, binds := range c.NetworkSettings.Ports {
				for _, hb := range binds {
					if n, err := strconv.Atoi(hb.HostPort); err == nil && n > 0 {
						ports[n] = true
					}
				}
			}
		}
		name := c.Config.Labels["com.docker.compose.service"]
		if name == "" {
			return nil, nil, fmt.Errorf("engine: container %.12s has no compose service label", c.ID)
		}
		a := backend.Actor{Name: name, Role: usage.RoleNode, ContainerID: c.ID, DataDir: filepath.Join(b.opts.WorkDir, name)}
		switch name {
		case composefile.ChainService:
			a.Role = usage.RoleChain
		case composefile.SamplerService:
			a.Role, a.DataDir = usage.RoleSampler, ""
		case postgres.Actor:
			a.Role, a.DataDir = usage.RoleDatabase, "" // its cluster is in the container's layer
		}
		if cg := backend.CgroupOf(c.State.Pid, a.ContainerID); cg != "" {
			a.PID, a.CgroupPath = c.State.Pid, cg
		}
		actors = append(actors, a)
	}
	return actors, ports, nil
}
