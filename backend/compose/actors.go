package compose

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/composefile"
)

// Actors lists the project's running containers: one `docker ps` and one
// `docker inspect` for all of them. PID and CgroupPath are set only when the
// engine shares this host's PID namespace (checked against /proc), so the
// collector falls back to the engine's stats API elsewhere.
func (b *Backend) Actors(ctx context.Context) ([]backend.Actor, error) {
	out, err := docker(ctx, "ps", "-q", "--no-trunc", "--filter", "label=com.docker.compose.project="+b.project)
	if err != nil {
		return nil, err
	}
	ids := strings.Fields(out)
	if len(ids) == 0 {
		return nil, nil
	}
	args := append([]string{"inspect", "--format", `{{.Id}} {{.State.Pid}} {{index .Config.Labels "com.docker.compose.service"}}`}, ids...)
	out, err = docker(ctx, args...)
	if err != nil {
		return nil, err
	}
	return b.parseActors(out)
}

func (b *Backend) parseActors(inspect string) ([]backend.Actor, error) {
	var actors []backend.Actor
	for _, line := range strings.Split(strings.TrimSpace(inspect), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			return nil, fmt.Errorf("docker inspect: unexpected %q", line)
		}
		pid, _ := strconv.Atoi(f[1])
		a := backend.Actor{Name: f[2], Role: backend.RoleNode, ContainerID: f[0], DataDir: filepath.Join(b.opts.WorkDir, f[2])}
		switch f[2] {
		case composefile.ChainService:
			a.Role = backend.RoleChain
		case composefile.SamplerService:
			a.Role, a.DataDir = backend.RoleSampler, ""
		}
		if cg := backend.CgroupOf(pid, a.ContainerID); cg != "" {
			a.PID, a.CgroupPath = pid, cg
		}
		actors = append(actors, a)
	}
	return actors, nil
}
