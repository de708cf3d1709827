// Package compose is the Docker Compose backend: btcd and every lnd actor
// run as containers of one compose project per network, on a private compose
// network, from images built by package imagebuild.
//
// The constructor receives the whole topology, so the compose file is
// generated up front with every service and written to the artifacts folder
// (docker-compose.yml, or docker-compose.<network>.yml when a run has several
// networks); StartChain refreshes it with the chain's credentials and mining
// address, StartNode with the node's database and extra flags, then each
// starts its one service. Only gRPC and btcd's RPC are published, on
// 127.0.0.1 with host ports chosen by Docker and read back; node data dirs
// are bind mounts of the run's work dir, so the harness reads tls.cert and
// admin.macaroon from the host. Works with `docker compose` (v2) and
// `docker-compose` (v1), detected once.
package compose

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/backend/orchestrator"
	"github.com/lnbench/lnbench/chain/bitcoincli"
	"github.com/lnbench/lnbench/chain/btcd"
	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/dbserver/postgres"
	"github.com/lnbench/lnbench/internal/dockercli"
	"github.com/lnbench/lnbench/internal/fileutil"
	"github.com/lnbench/lnbench/node/lnd"
)

// Options configure one network's compose backend.
type Options struct {
	composefile.NetworkOptions
	// CPUSet pins the network's containers (composefile.Spec.CPUSet).
	CPUSet string
	// Tool is the host path of a static lnbench, mounted into actors (for
	// sample-loop.sh) and the sampler; "" mounts nothing and leaves the
	// artifacts folder unmounted too.
	Tool string
	// User is "uid:gid" for the containers; default the harness's own.
	User string
}

// Backend is the compose backend of one network.
type Backend struct {
	opts    Options
	tool    Tool
	project string
	file    string

	mu sync.Mutex // guards spec and the file
	// upMu serialises `up` on docker-compose v1, which races with itself
	// when two `up --no-deps` of one project run at once ("No such
	// container"). Compose v2 does not; serialised, a network's second
	// LND container started 2.5 s after its first.
	upMu    sync.Mutex
	spec    composefile.Spec
	started map[string]bool
	// pgPass is the PostgreSQL server's password (db=postgres nodes), set
	// in compose's environment like btcd's; pgMu serialises its start.
	pgPass string
	pgMu   sync.Mutex
	// keepDBs: Teardown dumps the nodes' databases (KeepDatabases).
	keepDBs bool

	// faultMu serialises impairments; impaired is each actor's current
	// set, re-applied whole on every change (see faults.go).
	faultMu  sync.Mutex
	impaired map[string]*impairments
	// mech is how delay and loss can be applied, probed at the first
	// delay or loss (probed); nextQueue numbers the delayers' NFQUEUEs,
	// never reused within a backend, so a draining delayer's queue is
	// never a new one's.
	mech      Mechanisms
	probed    bool
	nextQueue int
	// delayerFrom is each running delayer's packets (delayer.From), by
	// container id; lastLift when the last applyTC lifted a delay.
	delayerFrom map[string]string
	lastLift    time.Time
	// eng answers questions about containers (engine.go).
	eng lazyEngine
}

// New generates and writes the compose file; nothing starts until StartChain.
func New(ctx context.Context, opts Options) (*Backend, error) {
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 90 * time.Second
	}
	if opts.User == "" {
		opts.User = containerUser(os.Getuid(), os.Getgid())
	}
	if opts.ArtifactsDir == "" {
		return nil, errors.New("compose backend: no artifacts folder for the compose file")
	}
	t, err := DetectTool(ctx)
	if err != nil {
		return nil, err
	}
	project, file := composefile.ProjectName(opts.RunID, ""), composefile.FileName("")
	if opts.Separate {
		project, file = composefile.ProjectName(opts.RunID, opts.Network), composefile.FileName(opts.Network)
	}
	spec, err := opts.Spec(project, opts.User)
	if err != nil {
		return nil, err
	}
	spec.CPUSet, spec.Tool = opts.CPUSet, opts.Tool
	if opts.Tool != "" {
		spec.BitcoinCLI = bitcoincli.Beside(opts.Tool)
	}
	b := &Backend{opts: opts, tool: t, started: map[string]bool{}, delayerFrom: map[string]string{},
		project: project, file: filepath.Join(opts.ArtifactsDir, file), pgPass: postgres.NewPassword()}
	if opts.Tool != "" {
		art, err := filepath.Abs(opts.ArtifactsDir)
		if err != nil {
			return nil, err
		}
		spec.Artifacts = art
		// The sampler and sample-loop.sh write their windows there.
		if err := shareWith(art, opts.User); err != nil {
			return nil, fmt.Errorf("artifacts folder: %v", err)
		}
	}
	if slices.ContainsFunc(spec.Nodes, composefile.Node.IsCLN) {
		if spec.PerfSeccomp, err = writePerfSeccomp(opts.ArtifactsDir); err != nil {
			return nil, err
		}
	}
	// Bind-mount sources must exist, or Docker creates them owned by root.
	dirs := []string{composefile.ChainService}
	for _, n := range spec.Nodes {
		dirs = append(dirs, n.Name)
	}
	if opts.Sampler {
		dirs = append(dirs, composefile.SamplerService)
	}
	for _, d := range dirs {
		dir := filepath.Join(opts.WorkDir, d)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("run folder: %v", err)
		}
		if err := giveTo(dir, opts.User); err != nil {
			return nil, fmt.Errorf("run folder: %v", err)
		}
	}
	b.spec = spec
	if err := b.writeFile(); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *Backend) Name() string  { return "compose" }
func (b *Backend) RunID() string { return b.opts.RunID }

// File is the compose file's path; Project its project name.
func (b *Backend) File() string    { return b.file }
func (b *Backend) Project() string { return b.project }

// Tool is the compose command in use.
func (b *Backend) Tool() Tool { return b.tool }

// writeFile renders the spec and replaces the file atomically; callers
// hold b.mu (or own b exclusively).
func (b *Backend) writeFile() error {
	data, err := composefile.Generate(b.spec)
	if err != nil {
		return err
	}
	return composefile.WriteAtomic(b.file, data)
}

// compose runs the compose tool on this project's file.
func (b *Backend) compose(ctx context.Context, args ...string) (string, error) {
	if len(args) > 0 && args[0] == "up" && b.tool.V1() {
		b.upMu.Lock()
		defer b.upMu.Unlock()
	}
	full := append(append([]string(nil), b.tool.Argv[1:]...), "-p", b.project, "-f", b.file)
	full = append(full, args...)
	b.mu.Lock()
	pass := b.spec.Chain.RPCPass
	b.mu.Unlock()
	return runEnv(ctx, []string{"LNBENCH_RPCPASS=" + pass, "LNBENCH_PGPASS=" + b.pgPass}, b.tool.Argv[0], full...)
}

// containerID finds a service's container (running or not) by the labels
// both compose versions set.
func (b *Backend) containerID(ctx context.Context, service string) (string, error) {
	ids, err := b.engine(ctx).Containers(ctx, projectQuery(b.project, service))
	if err != nil {
		return "", err
	}
	if len(ids) == 0 {
		return "", nil
	}
	return ids[0], nil
}

// engine is the backend's engine, picked at the first question.
func (b *Backend) engine(ctx context.Context) engine { return b.eng.get(ctx) }

// inspect1 is one container's document.
func (b *Backend) inspect1(ctx context.Context, id string) (container.InspectResponse, error) {
	docs, err := b.engine(ctx).Inspect(ctx, id)
	if err != nil {
		return container.InspectResponse{}, err
	}
	return docs[0], nil
}

// imageOf is the image a container runs.
func (b *Backend) imageOf(ctx context.Context, id string) (string, error) {
	c, err := b.inspect1(ctx, id)
	if err != nil {
		return "", err
	}
	if c.Config == nil {
		return "", fmt.Errorf("container %s: no config", id)
	}
	return c.Config.Image, nil
}

// StartChain refreshes the file with the chain's credentials and mining
// address, starts btcd and waits until its RPC answers on the published port.
func (b *Backend) StartChain(ctx context.Context, spec backend.ChainSpec) (backend.ChainEndpoint, error) {
	b.mu.Lock()
	b.spec.Chain = spec
	err := b.writeFile()
	args := b.spec.BtcdConfig().Args()
	b.mu.Unlock()
	if err != nil {
		return backend.ChainEndpoint{}, err
	}
	if err := b.writeChainCert(); err != nil {
		return backend.ChainEndpoint{}, err
	}
	if err := b.Deploy(ctx, composefile.ChainService); err != nil {
		return backend.ChainEndpoint{}, fmt.Errorf("starting btcd: %w", err)
	}
	host, cert, err := b.waitChain(ctx)
	if err != nil {
		return backend.ChainEndpoint{}, err
	}
	return backend.ChainEndpoint{RPCHost: host, CertPath: cert, User: spec.RPCUser, Pass: spec.RPCPass, Args: args}, nil
}

// writeChainCert puts btcd's RPC certificate in the chain's folder before
// it starts (btcd.WriteRPCCert), for the name the nodes dial, owned by the
// containers' user.
func (b *Backend) writeChainCert() error {
	certPath, keyPath := b.chainCert()
	if err := btcd.WriteRPCCert(certPath, keyPath, composefile.ChainService); err != nil {
		return err
	}
	for _, f := range []string{certPath, keyPath} {
		if err := giveTo(f, b.opts.User); err != nil {
			return fmt.Errorf("btcd RPC certificate: %v", err)
		}
	}
	return nil
}

// chainCert is where btcd's RPC certificate and key are on the host (the
// chain's /data).
func (b *Backend) chainCert() (cert, key string) {
	dir := filepath.Join(b.opts.WorkDir, composefile.ChainService)
	return filepath.Join(dir, "rpc.cert"), filepath.Join(dir, "rpc.key")
}

// waitChain waits until btcd's RPC answers TLS on its published port and
// returns that host:port and the certificate's path.
func (b *Backend) waitChain(ctx context.Context) (host, cert string, err error) {
	cert, _ = b.chainCert()
	_, err = b.waiting().Ready(ctx, b, "chain", composefile.ChainService, func(t orchestrator.Task) bool {
		host = published(t, composefile.BtcdRPCPort)
		// rpcclient verifies the certificate for the IP it dials.
		return host != "" && fileutil.NonEmpty(cert) && backend.TLSAnswers(host, cert, "127.0.0.1")
	})
	return host, cert, err
}

// StartSampler starts the profiling sidecar and returns the URL of its
// control API (published on loopback only).
func (b *Backend) StartSampler(ctx context.Context) (string, error) {
	if !b.opts.Sampler {
		return "", errors.New("compose backend: this network was generated without the sampler sidecar")
	}
	var host string
	_, err := b.waiting().Start(ctx, b, "sampler", composefile.SamplerService, func(t orchestrator.Task) bool {
		host = published(t, composefile.SamplerControlPort)
		return host != ""
	})
	if err != nil {
		return "", err
	}
	return "http://" + host, nil
}

func (b *Backend) markStarted(name string) {
	b.mu.Lock()
	b.started[name] = true
	b.mu.Unlock()
}

// StartNode starts one node (refreshing the file first if the node's flags
// differ from what it holds) and waits until it answers: an lnd's
// credentials on the bind mount and its gRPC over TLS on the published
// port, a lightningd's JSON-RPC through the published bridge.
func (b *Backend) StartNode(ctx context.Context, spec backend.NodeSpec) (backend.NodeEndpoint, error) {
	b.mu.Lock()
	n, changed, err := b.spec.StartNode(spec)
	if err == nil && changed {
		err = b.writeFile()
	}
	var args []string
	if err == nil {
		args = b.spec.NodeArgs(n)
	}
	b.mu.Unlock()
	if err != nil {
		return backend.NodeEndpoint{}, err
	}
	if n.OnPostgres() {
		if err := b.startPostgres(ctx); err != nil {
			return backend.NodeEndpoint{}, fmt.Errorf("node %s: db=postgres: %w", spec.Name, err)
		}
	}
	if err := b.Deploy(ctx, spec.Name); err != nil {
		return backend.NodeEndpoint{}, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	ep, err := b.waitNode(ctx, b.nodeEndpoint(n, args))
	if n.OnPostgres() {
		ep.Database = "" // the server is reached inside the network only
	}
	return ep, err
}

// nodeEndpoint is where a node's credentials are on the bind mount and how
// peers reach it; RPCHost is read back from Docker by waitNode.
func (b *Backend) nodeEndpoint(n composefile.Node, args []string) backend.NodeEndpoint {
	dir := filepath.Join(b.opts.WorkDir, n.Name)
	ep := backend.NodeEndpoint{
		Name:     n.Name,
		PeerHost: fmt.Sprintf("%s:%d", n.Name, composefile.LndP2PPort),
		Args:     args,
	}
	if !n.IsCLN() {
		ep.TLSCertPath = filepath.Join(dir, "tls.cert")
		ep.MacaroonPath = lnd.MacaroonPath(dir, b.chainNetwork())
	}
	if b.opts.Pprof {
		ep.PprofHost = fmt.Sprintf("%s:%d", n.Name, composefile.LndPprofPort)
	}
	return ep
}

// chainNetwork is the chain's network ("simnet" or "regtest").
func (b *Backend) chainNetwork() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(btcd.Network(b.spec.Chain.Network).Or())
}

// waitNode waits until the node answers on its published port and fills
// in RPCHost (harnessHost): an lnd's gRPC over TLS once its credentials
// exist, a lightningd's getinfo through the RPC bridge.
func (b *Backend) waitNode(ctx context.Context, ep backend.NodeEndpoint) (backend.NodeEndpoint, error) {
	if ep.MacaroonPath == "" {
		return b.waitCLN(ctx, ep)
	}
	_, err := b.waiting().Ready(ctx, b, "node", ep.Name, func(t orchestrator.Task) bool {
		if !fileutil.NonEmpty(ep.MacaroonPath) || !fileutil.NonEmpty(ep.TLSCertPath) {
			return false
		}
		ep.RPCHost = b.harnessHost(ctx, t, composefile.LndRPCPort, func(hostPort string) bool {
			return backend.TLSAnswers(hostPort, ep.TLSCertPath, "localhost")
		})
		return ep.RPCHost != ""
	})
	if err != nil {
		return backend.NodeEndpoint{}, err
	}
	return ep, nil
}

func (b *Backend) nodeNames() []string {
	var out []string
	for _, n := range b.spec.Nodes {
		out = append(out, n.Name)
	}
	return out
}

// StopNode stops one node's container (SIGTERM, SIGKILL after 15 s).
func (b *Backend) StopNode(ctx context.Context, name string) error {
	b.mu.Lock()
	ok := slices.Contains(b.nodeNames(), name)
	b.mu.Unlock()
	if !ok {
		return fmt.Errorf("stop %s: no such node in this network", name)
	}
	_, err := b.compose(ctx, "stop", "-t", "15", name)
	return err
}

// services lists every service of the file, sorted.
func (b *Backend) services() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := append([]string{composefile.ChainService}, b.nodeNames()...)
	if b.opts.Sampler {
		out = append(out, composefile.SamplerService)
	}
	sort.Strings(out)
	return out
}

// CollectLogs writes each container's output to dir/<name>/container.log
// and copies lnd.log / btcd.log from the bind mounts.
func (b *Backend) CollectLogs(ctx context.Context, dir string) error {
	var errs []error
	for _, name := range b.services() {
		dst := filepath.Join(dir, name)
		id, err := b.containerID(ctx, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		src := filepath.Join(b.opts.WorkDir, name)
		files := b.logFiles(name)
		if id == "" && !anyExists(src, files) {
			continue // never started
		}
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return err
		}
		if id != "" {
			if err := dockerLogs(ctx, id, filepath.Join(dst, "container.log")); err != nil {
				errs = append(errs, fmt.Errorf("%s: %v", name, err))
			}
		}
		for _, rel := range files {
			if err := fileutil.Copy(filepath.Join(src, rel), filepath.Join(dst, filepath.Base(rel)), 0o644); err != nil && !os.IsNotExist(err) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func anyExists(dir string, rels []string) bool {
	for _, r := range rels {
		if _, err := os.Stat(filepath.Join(dir, r)); err == nil {
			return true
		}
	}
	return false
}

func dockerLogs(ctx context.Context, id, path string) error {
	return dockercli.LogsTo(ctx, nil, id, path)
}

// Teardown runs `down -v --remove-orphans` for the project, then sweeps
// whatever still carries this run's (and network's) label. It reports an
// error only if something labelled is left.
func (b *Backend) Teardown(ctx context.Context) error {
	// Delayers first: they share actors' network namespaces.
	_ = b.removeDelayers(ctx, "")
	dumpErr := b.dumpDatabases(ctx)
	_, downErr := b.compose(ctx, "down", "-v", "--remove-orphans", "-t", "10")
	filters := []string{"label=" + backend.Label + "=" + b.opts.RunID}
	if b.opts.Network != "" {
		filters = append(filters, "label="+composefile.NetworkLabel+"="+b.opts.Network)
	}
	_, sweepErr := remove(ctx, filters...)
	left, err := leftovers(ctx, filters...)
	if err != nil {
		return errors.Join(dumpErr, downErr, sweepErr, err)
	}
	if len(left) > 0 {
		return errors.Join(dumpErr, fmt.Errorf("teardown of %s left %s (compose down: %v; sweep: %v); remove them with `lnbench down %s`", b.project, strings.Join(left, ", "), downErr, sweepErr, b.opts.RunID))
	}
	return dumpErr
}

// ContainerName is the name of a service's container, for `docker exec`.
func (b *Backend) ContainerName(ctx context.Context, service string) (string, error) {
	id, err := b.containerID(ctx, service)
	if err != nil || id == "" {
		return "", fmt.Errorf("no container for %s: %v", service, err)
	}
	c, err := b.inspect1(ctx, id)
	return strings.TrimPrefix(c.Name, "/"), err
}

// Dead lists the started services whose container is no longer running.
// One question to the engine answers the common case (all alive), so a
// watchdog can ask every second.
func (b *Backend) Dead(ctx context.Context) []backend.Death {
	q := projectQuery(b.project, "")
	q.Status = "exited"
	if exited, err := b.engine(ctx).Containers(ctx, q); err != nil || len(exited) == 0 {
		return nil
	}
	b.mu.Lock()
	var names []string
	for n := range b.started {
		names = append(names, n)
	}
	b.mu.Unlock()
	sort.Strings(names)
	var out []backend.Death
	for _, n := range names {
		if t, err := b.Locate(ctx, n); err == nil && t.Container != "" && !t.Running {
			out = append(out, b.Death(ctx, n, t, 10))
		}
	}
	return out
}

// DataFolder is where an actor keeps its data: the bind mount of its
// container, its folder in the run's.
func (b *Backend) DataFolder(actor string) string { return filepath.Join(b.opts.WorkDir, actor) }

// AdoptData hands an actor's restored files to the containers' user.
func (b *Backend) AdoptData(actor string) error { return giveTreeTo(b.DataFolder(actor), b.opts.User) }

var _ backend.DataFolders = (*Backend)(nil)
