// Package backend is the seam between the harness and where nodes run:
// local processes on 127.0.0.1 (backend/local), containers on a compose
// network (backend/compose) or services of a Docker swarm (backend/swarm).
package backend

import (
	"context"
	"time"
)

// Label is carried by everything a run starts, so cleanup is exact.
const Label = "lnbench.run"

// ChainSpec describes the private chain to start.
type ChainSpec struct {
	// Network is "simnet" ("" too) or "regtest" (networks with a CLN node).
	Network    string
	MiningAddr string
	RPCUser    string
	RPCPass    string
	// Nodes is how many nodes will connect (btcd's RPC limits follow it).
	Nodes int
}

// ChainEndpoint tells the harness how to reach the chain's RPC.
type ChainEndpoint struct {
	RPCHost  string // host:port reachable from the harness
	CertPath string
	User     string
	Pass     string
	Args     []string // the command line, for the artifacts
}

// NodeSpec describes one node to start.
type NodeSpec struct {
	Name           string
	Implementation string
	Version        string
	// Build is the build key of the node's binaries ("" = by implementation/version).
	Build     string
	DBBackend string
	ExtraArgs []string
	// Env are environment variables ("NAME=value") the node starts with.
	Env []string
}

// NodeConfig is how the nodes of one node spec start: database backend
// and the flags after the harness's own (profile's, then the scenario's).
type NodeConfig struct {
	DBBackend string
	Args      []string
	Env       []string // "NAME=value", e.g. a footprint's GOGC
}

// BuildRef is the key a node's binaries or image are found by: its build
// key, else implementation/version.
func (s NodeSpec) BuildRef() string {
	if s.Build != "" {
		return s.Build
	}
	return s.Implementation + "/" + s.Version
}

// NodeEndpoint tells the harness how to reach and authenticate to a node.
type NodeEndpoint struct {
	Name         string
	RPCHost      string // gRPC host:port reachable from the harness
	TLSCertPath  string
	MacaroonPath string
	PeerHost     string // P2P host:port as the other nodes reach it
	PprofHost    string // pprof host:port as the sampler reaches it ("" if off)
	// Database is where the harness can read the node's own database
	// (node.Endpoint.Database): a file of this host or a server it reaches;
	// "" where it cannot.
	Database string
	// RouteLog is the node's route log (node.Endpoint.RouteLog) as this
	// host reads it; "" where it cannot.
	RouteLog string
	Args     []string
}

// Backend starts and stops the chain and the nodes of one run. Methods are
// safe for concurrent use; StartNode is called for several nodes at once.
type Backend interface {
	Name() string
	RunID() string
	StartChain(ctx context.Context, spec ChainSpec) (ChainEndpoint, error)
	StartNode(ctx context.Context, spec NodeSpec) (NodeEndpoint, error)
	StopNode(ctx context.Context, name string) error
	// CollectLogs copies every service's logs under dir/<name>/.
	CollectLogs(ctx context.Context, dir string) error
	// Teardown stops everything the run started, and only that.
	Teardown(ctx context.Context) error
}

// Diagnoser is implemented by backends that can tell which of the run's
// services died (see Death). The runner asks about once a second in every
// phase, setup included, so the common answer (all alive) must be cheap.
type Diagnoser interface {
	Dead(ctx context.Context) []Death
}

// WatchPacer is implemented by backends whose Dead costs more than a
// local question (swarm asks a manager over the network): how often the
// runner should ask.
type WatchPacer interface {
	WatchEvery() time.Duration
}

// Placer is implemented by backends that spread services over several
// engines: Placement maps each service to the engine that runs it.
type Placer interface {
	Placement() map[string]string
}

// ChainActor is the chain's name among a network's actors.
const ChainActor = "btcd"

// DataFolders is a backend whose actors keep their data in folders of this
// host (local processes, compose bind mounts), so that a snapshot can save
// them once the actors stopped and restore them before they start.
type DataFolders interface {
	// DataFolder is the host folder of an actor's data (ChainActor: the
	// chain's), whether it exists yet or not.
	DataFolder(actor string) string
	// AdoptData makes the files restored into an actor's folder its own
	// (compose's containers run as another user than a root harness).
	AdoptData(actor string) error
}

// DatabaseKeeper is a backend whose nodes may keep their state in a
// database server of the network (db=postgres). The server's cluster is
// the run's own (its password is), so a snapshot keeps each node's
// database as a dump in the server's data folder instead:
// KeepDatabases asks Teardown to dump them there once the nodes stopped
// and before the server does, and a backend that finds dumps in that
// folder loads them into the databases it creates, before the nodes start.
type DatabaseKeeper interface {
	KeepDatabases()
}
