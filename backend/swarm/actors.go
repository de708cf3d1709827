package swarm

import (
	"context"
	"errors"
	"fmt"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/usage"
)

// Actors lists the running containers of the network's services, each
// with the engine that runs it (backend.Actor.Engine): one question to the
// manager per service for its task, and one inspection per engine
// for the containers' init processes. PID and CgroupPath are set when the
// engine shares this host's PID namespace (checked against /proc: the
// test bed's engines do), so their cgroups are read as compose's are;
// elsewhere the collector asks each container's own engine (its stats
// API). Services whose task is not running are left out and named in the
// error; the others are still listed.
func (b *Backend) Actors(ctx context.Context) ([]backend.Actor, error) {
	var actors []backend.Actor
	var errs []error
	byEngine := map[string][]int{} // engine host → indexes into actors
	for _, name := range b.startedServices() {
		t, err := b.taskOf(ctx, name)
		if err != nil || !t.Running {
			errs = append(errs, fmt.Errorf("%s: no running task (%q, %v)", name, t.State, err))
			continue
		}
		e, err := b.engineOf(t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		a := backend.Actor{Name: name, Role: usage.RoleNode, ContainerID: t.Container, Engine: e.Host}
		switch {
		case name == composefile.ChainService:
			a.Role = usage.RoleChain
		case b.isSampler(name):
			a.Role = usage.RoleSampler
		}
		byEngine[e.Host] = append(byEngine[e.Host], len(actors))
		actors = append(actors, a)
	}
	for host, idx := range byEngine {
		ids := make([]string, len(idx))
		for k, i := range idx {
			ids[k] = actors[i].ContainerID
		}
		docs, err := b.opts.Cluster.api(host).Inspect(ctx, ids...)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for k, i := range idx {
			a := &actors[i]
			if docs[k].ContainerJSONBase == nil || docs[k].State == nil {
				continue
			}
			pid := docs[k].State.Pid
			if cg := backend.CgroupOf(pid, a.ContainerID); cg != "" {
				a.PID, a.CgroupPath = pid, cg
			}
		}
	}
	return actors, errors.Join(errs...)
}
