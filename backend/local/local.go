// Package local runs the chain and the nodes as processes on 127.0.0.1,
// every port allocated at run time, every data dir inside the run's folder.
package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/chain/btcd"
	"github.com/lnbench/lnbench/dbserver/postgres"
	"github.com/lnbench/lnbench/internal/fileutil"
	"github.com/lnbench/lnbench/node/lnd"
	"github.com/lnbench/lnbench/nodespec"
	"github.com/lnbench/lnbench/usage"
)

// Options configure a local backend.
type Options struct {
	RunID   string
	WorkDir string // the run's folder; node data dirs go under it
	// BinDirs maps a build key (NodeSpec.BuildRef: the build key, else
	// "impl/version") to the folder holding its binaries.
	BinDirs map[string]string
	// ChainBinDir holds btcd.
	ChainBinDir string
	// BitcoinCLI is the lnbench binary CLN nodes run as bitcoin-cli and as
	// their route log plugin (symlinks under those names are made per
	// node); "" is this executable.
	BitcoinCLI   string
	StartTimeout time.Duration
	// Pprof opens each node's CPU profile endpoint: LND's own pprof, and
	// for CLN a perf-backed one served by this process (perfprof).
	Pprof bool
	// PerfCallGraph is CLN's perf unwinding: fp, dwarf, or auto ("").
	PerfCallGraph string
	// CPUs is the CPU set every process of the network runs on (a duet
	// round that splits the cores); nil: every CPU.
	CPUs []int
}

// Backend is the local-process backend.
type Backend struct {
	opts Options

	mu    sync.Mutex // guards every field below
	procs map[string]*proc
	order []string
	// eps are the nodes' endpoints, returned again after a restart.
	eps   map[string]backend.NodeEndpoint
	chain backend.ChainEndpoint
	// btcdHost is the chain RPC as the nodes reach it.
	btcdHost string
	// network is the chain's (simnet or regtest).
	network string
	// btcdDir holds btcd's rpc.cert (CLN's bitcoin-cli reads it there).
	btcdDir string
	// servers are CLN nodes' perf profile endpoints.
	servers []perfServer

	// pg is the PostgreSQL server of db=postgres nodes (nil until one
	// starts); pgMu serialises its start and the databases' creation.
	pgMu sync.Mutex
	pg   *pgServer
	// keepDBs: Teardown dumps the server's databases (KeepDatabases).
	keepDBs bool
}

// New prepares a backend; nothing starts until StartChain.
func New(opts Options) (*Backend, error) {
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 90 * time.Second
	}
	if err := os.MkdirAll(opts.WorkDir, 0o700); err != nil {
		return nil, fmt.Errorf("run folder: %v", err)
	}
	return &Backend{opts: opts, procs: map[string]*proc{}, eps: map[string]backend.NodeEndpoint{}}, nil
}

func (b *Backend) Name() string  { return "local" }
func (b *Backend) RunID() string { return b.opts.RunID }

func (b *Backend) track(p *proc) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.procs[p.name] = p
	b.order = append(b.order, p.name)
}

// StartChain starts btcd and waits for its RPC.
func (b *Backend) StartChain(ctx context.Context, spec backend.ChainSpec) (backend.ChainEndpoint, error) {
	dir := filepath.Join(b.opts.WorkDir, "btcd")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return backend.ChainEndpoint{}, err
	}
	rpc, err := allocated.next()
	if err != nil {
		return backend.ChainEndpoint{}, err
	}
	p2p, err := allocated.next()
	if err != nil {
		return backend.ChainEndpoint{}, err
	}
	cfg := btcd.Config{
		Network: btcd.Network(spec.Network),
		DataDir: filepath.Join(dir, "data"), LogDir: filepath.Join(dir, "logs"),
		RPCListen: hostPort(rpc), P2PListen: hostPort(p2p),
		RPCUser: spec.RPCUser, RPCPass: spec.RPCPass,
		RPCCert: filepath.Join(dir, "rpc.cert"), RPCKey: filepath.Join(dir, "rpc.key"),
		MiningAddr: spec.MiningAddr, Clients: spec.Nodes,
	}
	if err := btcd.WriteRPCCert(cfg.RPCCert, cfg.RPCKey); err != nil {
		return backend.ChainEndpoint{}, err
	}
	args := cfg.Args()
	p, err := startProcOn(b.opts.CPUs, "btcd", filepath.Join(b.opts.ChainBinDir, "btcd"), args, filepath.Join(dir, "stdout.log"))
	if err != nil {
		return backend.ChainEndpoint{}, err
	}
	p.dataDir = cfg.DataDir
	p.ready = func() bool { return fileutil.NonEmpty(cfg.RPCCert) && tcpOpen(cfg.RPCListen) }
	b.track(p)
	wctx, cancel := context.WithTimeoutCause(ctx, b.opts.StartTimeout, fmt.Errorf("start timeout %v", b.opts.StartTimeout))
	defer cancel()
	if err := p.waitReady(wctx, "chain", p.ready); err != nil {
		return backend.ChainEndpoint{}, err
	}
	ep := backend.ChainEndpoint{RPCHost: cfg.RPCListen, CertPath: cfg.RPCCert, User: spec.RPCUser, Pass: spec.RPCPass, Args: args}
	b.mu.Lock()
	b.btcdHost, b.chain, b.network, b.btcdDir = cfg.RPCListen, ep, string(cfg.Network.Or()), dir
	b.eps["btcd"] = backend.NodeEndpoint{Name: "btcd", RPCHost: cfg.RPCListen, TLSCertPath: cfg.RPCCert, PeerHost: cfg.P2PListen, Args: args}
	b.mu.Unlock()
	return ep, nil
}

// StartNode starts one lnd and waits until its RPC answers and its
// credentials exist.
func (b *Backend) StartNode(ctx context.Context, spec backend.NodeSpec) (backend.NodeEndpoint, error) {
	if spec.Implementation != "lnd" && spec.Implementation != "cln" {
		return backend.NodeEndpoint{}, fmt.Errorf("node %s: implementation %q is not supported by the local backend", spec.Name, spec.Implementation)
	}
	binDir, ok := b.opts.BinDirs[spec.BuildRef()]
	if !ok {
		return backend.NodeEndpoint{}, fmt.Errorf("node %s: no binaries for %s %s (build %s); lnbench run builds every spec of its scenario", spec.Name, spec.Implementation, spec.Version, spec.BuildRef())
	}
	b.mu.Lock()
	btcdHost, chain, network := b.btcdHost, b.chain, b.network
	b.mu.Unlock()
	if btcdHost == "" {
		return backend.NodeEndpoint{}, fmt.Errorf("node %s: start the chain first", spec.Name)
	}
	dir := filepath.Join(b.opts.WorkDir, spec.Name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return backend.NodeEndpoint{}, err
	}
	if spec.Implementation == "cln" {
		return b.startCLN(ctx, spec, binDir, dir)
	}
	var portsNeeded = 2
	if b.opts.Pprof {
		portsNeeded = 3
	}
	var ps []int
	var err error
	for i := 0; i < portsNeeded; i++ {
		p, err := allocated.next()
		if err != nil {
			return backend.NodeEndpoint{}, err
		}
		ps = append(ps, p)
	}
	cfg := lnd.Config{
		Network: network,
		Alias:   spec.Name, LndDir: dir,
		RPCListen: hostPort(ps[0]), P2PListen: hostPort(ps[1]),
		TLSExtraDomains: []string{spec.Name},
		BtcdRPCHost:     btcdHost, BtcdRPCUser: chain.User, BtcdRPCPass: chain.Pass, BtcdRPCCert: chain.CertPath,
		DBBackend: spec.DBBackend, Extra: spec.ExtraArgs,
	}
	if spec.DBBackend == nodespec.DBPostgres {
		if cfg.PostgresDSN, err = b.postgresDSN(ctx, spec.Name); err != nil {
			return backend.NodeEndpoint{}, err
		}
	}
	if b.opts.Pprof {
		cfg.PprofListen = hostPort(ps[2])
	}
	args := cfg.Args()
	p, err := startProcOn(b.opts.CPUs, spec.Name, filepath.Join(binDir, "lnd"), args, filepath.Join(dir, "stdout.log"), spec.Env...)
	if err != nil {
		return backend.NodeEndpoint{}, err
	}
	ep := backend.NodeEndpoint{
		Name: spec.Name, RPCHost: cfg.RPCListen,
		TLSCertPath:  filepath.Join(dir, "tls.cert"),
		MacaroonPath: lnd.MacaroonPath(dir, network),
		PeerHost:     cfg.P2PListen, PprofHost: cfg.PprofListen, Args: args,
	}
	p.dataDir, p.pprofHost = dir, cfg.PprofListen
	p.ready = func() bool {
		return fileutil.NonEmpty(ep.MacaroonPath) && fileutil.NonEmpty(ep.TLSCertPath) && tcpOpen(ep.RPCHost)
	}
	return b.awaitNode(ctx, p, ep)
}

// awaitNode tracks a started node with its endpoint and waits until it
// is ready (p.ready) or the start timeout passes.
func (b *Backend) awaitNode(ctx context.Context, p *proc, ep backend.NodeEndpoint) (backend.NodeEndpoint, error) {
	b.track(p)
	b.mu.Lock()
	b.eps[ep.Name] = ep
	b.mu.Unlock()
	wctx, cancel := context.WithTimeoutCause(ctx, b.opts.StartTimeout, fmt.Errorf("start timeout %v", b.opts.StartTimeout))
	defer cancel()
	if err := p.waitReady(wctx, "node", p.ready); err != nil {
		return backend.NodeEndpoint{}, err
	}
	return ep, nil
}

// StopNode stops one node (SIGTERM, then SIGKILL after 15 s).
func (b *Backend) StopNode(ctx context.Context, name string) error {
	b.mu.Lock()
	p, ok := b.procs[name]
	b.mu.Unlock()
	if !ok {
		return fmt.Errorf("stop %s: no such node in this run", name)
	}
	p.stop(15 * time.Second)
	return nil
}

// CollectLogs copies each service's stdout and own log into dir/<name>/.
func (b *Backend) CollectLogs(ctx context.Context, dir string) error {
	b.mu.Lock()
	names := append([]string(nil), b.order...)
	b.mu.Unlock()
	sort.Strings(names)
	var firstErr error
	for _, n := range names {
		src := filepath.Join(b.opts.WorkDir, n)
		dst := filepath.Join(dir, n)
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return err
		}
		for _, rel := range []string{"stdout.log", "logs/bitcoin/simnet/lnd.log", "logs/simnet/btcd.log", "logs/bitcoin/regtest/lnd.log", "logs/regtest/btcd.log", "lightningd.log"} {
			if err := fileutil.Copy(filepath.Join(src, rel), filepath.Join(dst, filepath.Base(rel)), 0o644); err != nil && !os.IsNotExist(err) && firstErr == nil {
				firstErr = err
			}
		}
	}
	return firstErr
}

// Teardown stops nodes in parallel, then the chain. Only processes this
// backend started are signalled.
func (b *Backend) Teardown(ctx context.Context) error {
	b.closeServers()
	b.mu.Lock()
	var nodes []*proc
	var chain *proc
	for _, p := range b.procs {
		switch p.name {
		case backend.ChainActor:
			chain = p
		case postgres.Actor: // after the nodes, whose state it holds
		default:
			nodes = append(nodes, p)
		}
	}
	b.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range nodes {
		wg.Add(1)
		go func(p *proc) { defer wg.Done(); p.stop(15 * time.Second) }(p)
	}
	wg.Wait()
	err := b.dumpDatabases(ctx)
	b.stopPostgres()
	if chain != nil {
		chain.stop(10 * time.Second)
	}
	return err
}

// Dead lists the processes that exited while they should be running.
func (b *Backend) Dead(ctx context.Context) []backend.Death {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []backend.Death
	for _, name := range b.order {
		if p := b.procs[name]; p.exited() {
			out = append(out, p.death(10))
		}
	}
	return out
}

// Actors lists the processes still running, in start order.
func (b *Backend) Actors(ctx context.Context) ([]backend.Actor, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []backend.Actor
	for _, name := range b.order {
		p := b.procs[name]
		if p.exited() {
			continue
		}
		role := usage.RoleNode
		switch name {
		case backend.ChainActor:
			role = usage.RoleChain
		case postgres.Actor:
			role = usage.RoleDatabase
		}
		out = append(out, backend.Actor{Name: name, Role: role, PID: p.cmd.Process.Pid, DataDir: p.dataDir, PprofHost: p.pprofHost})
	}
	return out, nil
}

var _ backend.ActorLister = (*Backend)(nil)

// DataFolder is where an actor keeps its data: its folder in the run's.
func (b *Backend) DataFolder(actor string) string { return filepath.Join(b.opts.WorkDir, actor) }

// AdoptData has nothing to do: the processes run as the harness.
func (b *Backend) AdoptData(string) error { return nil }

var _ backend.DataFolders = (*Backend)(nil)
