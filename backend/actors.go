package backend

import "context"

// Actor is one measurable service of a run: a container or a process tree.
type Actor struct {
	Name string
	Role string // usage.RoleNode, usage.RoleChain, usage.RoleSampler or usage.RoleProxy
	// ContainerID is the full container id (compose, swarm); "" for processes.
	ContainerID string
	// Engine is the DOCKER_HOST of the engine running the container when
	// it is not this machine's default one (swarm): its stats API is asked
	// when the container's cgroup is not readable here.
	Engine string
	// PID is the process (local) or the container's init process, as seen
	// from the host's PID namespace; 0 when unknown.
	PID int
	// DataDir is the actor's data dir on the host ("" if it has none).
	DataDir string
	// CgroupPath is the container's cgroup relative to the hierarchy root
	// (e.g. "/docker/<id>"); "" for local processes, measured from /proc.
	CgroupPath string
	// PprofHost is host:port of the actor's pprof endpoint as the harness
	// reaches it; "" when off or unreachable from the host.
	PprofHost string
	// PIDs, for an actor that is a set of unrelated processes (the
	// docker-proxy processes of a network), are measured each alone and
	// summed; PID, ContainerID and CgroupPath are then empty.
	PIDs []int
}

// ActorLister is implemented by backends whose actors can be measured.
// Actors lists what is running now (services not started are left out).
type ActorLister interface {
	Actors(ctx context.Context) ([]Actor, error)
}
