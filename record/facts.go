package record

import "github.com/lnbench/lnbench/usage/costcurve"

// The facts the runner records per node spec, network and service.

// NodeInfo describes one node spec of the run: its build, config profile
// and the flags its nodes ran with.
type NodeInfo struct {
	Label          string `json:"label,omitempty"` // the spec's name in the Node column
	Baseline       bool   `json:"baseline,omitempty"`
	Implementation string `json:"implementation"`
	Version        string `json:"version"`
	Build          string `json:"build,omitempty"`  // lnd@v0.21.0-beta or lnd@src:/abs/path
	Key            string `json:"key,omitempty"`    // build key
	Source         string `json:"source,omitempty"` // source tree path
	Commit         string `json:"commit,omitempty"` // git commit of the source tree
	Dirty          bool   `json:"dirty,omitempty"`  // uncommitted edits in the source tree
	// A git revision's build (src:PATH#REV): the revision as named and the
	// commit's subject; the content is the commit's, never the work tree's.
	Revision  string   `json:"revision,omitempty"`
	Subject   string   `json:"subject,omitempty"`
	GoVersion string   `json:"go_version,omitempty"`
	Tags      []string `json:"tags,omitempty"`
	PGOHash   string   `json:"pgo_hash,omitempty"`
	// C builds (CLN): the version string the node reports, the compiler
	// and the build options (opt, march, fp, configure).
	NodeVersion  string   `json:"node_version,omitempty"`
	Compiler     string   `json:"compiler,omitempty"`
	BuildOptions string   `json:"build_options,omitempty"`
	Profile      string   `json:"profile,omitempty"` // config profile, e.g. default+bbolt
	Image        string   `json:"image,omitempty"`   // compose only
	Flags        []string `json:"flags"`
	// Env is the environment the nodes started with beyond the host's
	// (a footprint's GOGC).
	Env []string `json:"env,omitempty"`
	// Nodes are the topology nodes that ran this spec (in any network).
	Nodes []string `json:"nodes,omitempty"`
}

// Setup is the wall time of one setup phase of one network.
type Setup struct {
	Network string  `json:"network"` // case id or network key the network served
	Phase   string  `json:"phase"`
	Seconds float64 `json:"seconds"`
}

// Forward is one node's forwarded-HTLC count at the end of a network's life.
type Forward struct {
	Network string `json:"network"`
	Node    string `json:"node"`
	Count   int    `json:"count"`
}

// Placement is the engine (swarm node) that ran one service of a network.
type Placement struct {
	Network string `json:"network"`
	Service string `json:"service"`
	Engine  string `json:"engine"`
}

// NetworkCost is one network's use of the machine, measured by the harness
// the moment the network was ready: the cost curve's point as recorded
// (costcurve.AtReady), with what names and explains it.
type NetworkCost struct {
	Network string `json:"network"`
	costcurve.AtReady
	Cases []string `json:"cases"` // the cases it served
	// HarnessCPUSeconds is the harness's share of AtReady.CPUSeconds: its
	// CPU time during setup.
	HarnessCPUSeconds float64 `json:"harness_cpu_s"`
	// Source says where the figures come from (proc, cgroup-v1, …).
	Source string `json:"source,omitempty"`
}
