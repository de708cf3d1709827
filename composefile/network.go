package composefile

import (
	"os"
	"path/filepath"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/topology"
)

// NetworkOptions is what both container backends (compose, swarm) are
// told of one network; each embeds it in its Options and adds its own.
type NetworkOptions struct {
	RunID string
	// Network is the network's name within the run (labels, file and
	// project names); may be empty.
	Network string
	// Separate names the file after the network (several networks per run).
	Separate bool
	// WorkDir receives <service>/ folders; ArtifactsDir the compose or
	// stack file.
	WorkDir      string
	ArtifactsDir string
	Topology     topology.Topology
	// NodeImages maps a build key (topology Node.Build; "impl/version" for
	// nodes without one) to the image of its nodes; ChainImage runs btcd
	// (default: the image of the first node).
	NodeImages map[string]string
	ChainImage string
	// PostgresImage runs the server of db=postgres nodes (the backend's
	// to fill, like NodeImages).
	PostgresImage string
	// DBBackend and NodeArgs are what the nodes will be started with (per
	// node spec label: Configs); the file is refreshed if StartNode asks
	// for something else.
	DBBackend string
	NodeArgs  []string
	Configs   map[string]backend.NodeConfig
	// Limits are per node; a topology node's own cpus/memory come before
	// DefaultLimits (AddNodes).
	Limits        map[string]Limits
	DefaultLimits Limits
	Pprof         bool
	// Sampler adds the profiling sidecar(s); SamplerArgs are its flags.
	Sampler     bool
	SamplerArgs []string
	// FragmentsDir reads fragments from a folder instead of the embedded ones.
	FragmentsDir string
	StartTimeout time.Duration
}

// Spec begins the network's file: the work folder made absolute (kept in
// o), the fragments loaded and every topology node added. project and
// user are the backend's.
func (o *NetworkOptions) Spec(project, user string) (Spec, error) {
	work, err := filepath.Abs(o.WorkDir)
	if err != nil {
		return Spec{}, err
	}
	o.WorkDir = work
	frags, err := LoadFragmentsDir(o.FragmentsDir)
	if err != nil {
		return Spec{}, err
	}
	spec := Spec{RunID: o.RunID, Network: o.Network, Project: project, WorkDir: o.WorkDir, User: user,
		ChainImage: o.ChainImage, PostgresImage: o.PostgresImage, Limits: o.Limits, DefaultLimits: o.DefaultLimits, Pprof: o.Pprof,
		Sampler: o.Sampler, SamplerArgs: o.SamplerArgs, Fragments: frags}
	if err := spec.AddNodes(o.Topology.Nodes, o.NodeImages, o.Configs, backend.NodeConfig{DBBackend: o.DBBackend, Args: o.NodeArgs}); err != nil {
		return Spec{}, err
	}
	return spec, nil
}

// WriteAtomic replaces path with data (a rename, so a reader never sees
// half a file), making its folder first.
func WriteAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
