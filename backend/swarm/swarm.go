// Package swarm is the Docker Swarm backend: the network of one run is a
// stack (`docker stack deploy`, see composefile.BuildStack) spread over the
// engines of an existing swarm, one service per actor pinned to a swarm
// node, on an attachable overlay network.
//
// The harness talks to the manager for the stack and to each engine (its
// DOCKER_HOST from the engines file) for what swarm does not relay: the
// files a node writes (tls.cert, admin.macaroon, logs, copied out with
// `docker cp` from the task's container) and the containers' output. gRPC
// and btcd's RPC are published in swarm's host mode on the engine that runs
// the task, with a host port chosen by Docker, and dialed on the engine's
// address from the engines file. btcd's RPC certificate is made by the
// harness for every engine address and reaches btcd (with its key, a swarm
// secret) and each lnd as swarm objects, so nothing is bind-mounted.
//
// Services are deployed as they start: each Start* redeploys the stack with
// one more service (a no-op for the ones already running).
package swarm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/btcsuite/btcd/btcutil"
	dockerswarm "github.com/docker/docker/api/types/swarm"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/backend/orchestrator"
	"github.com/lnbench/lnbench/chain/btcd"
	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/internal/dockercli"
	"github.com/lnbench/lnbench/internal/fileutil"
	"github.com/lnbench/lnbench/internal/lines"
	"github.com/lnbench/lnbench/node/lnd"
)

// Options configure one network's swarm backend.
type Options struct {
	composefile.NetworkOptions
	// Cluster is the checked swarm (Check); Sampler adds one sampler
	// service per engine hosting nodes (the images must carry lnbench:
	// imagebuild.EnsureTool).
	Cluster Cluster
	Log     io.Writer
}

// Backend is the swarm backend of one network.
type Backend struct {
	opts      Options
	stack     string
	file      string // the whole stack, in the artifacts
	placement map[string]string
	cert, key string

	mu       sync.Mutex // guards spec, started
	deployMu sync.Mutex // one `docker stack deploy` at a time
	spec     composefile.Spec
	started  []string
}

// New checks the placement, makes btcd's RPC certificate and writes the
// stack file; nothing runs until StartChain.
func New(ctx context.Context, opts Options) (*Backend, error) {
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 2 * time.Minute
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.ArtifactsDir == "" {
		return nil, errors.New("swarm backend: no artifacts folder for the stack file")
	}
	if opts.Cluster.Manager.Host == "" || len(opts.Cluster.Nodes) == 0 {
		return nil, errors.New("swarm backend: no checked swarm (swarm.Check)")
	}
	place, err := Place(opts.Topology, opts.Cluster)
	if err != nil {
		return nil, err
	}
	b := &Backend{opts: opts, placement: place, stack: composefile.StackName(opts.RunID, "")}
	b.file = filepath.Join(opts.ArtifactsDir, "stack.yml")
	if opts.Separate {
		b.stack = composefile.StackName(opts.RunID, opts.Network)
		b.file = filepath.Join(opts.ArtifactsDir, "stack."+strings.TrimSuffix(strings.TrimPrefix(composefile.FileName(opts.Network), "docker-compose."), ".yml")+".yml")
	}
	spec, err := opts.Spec(b.stack, "0:0")
	if err != nil {
		return nil, err
	}
	b.opts = opts // with the work folder made absolute
	chainDir := filepath.Join(opts.WorkDir, composefile.ChainService)
	if err := os.MkdirAll(chainDir, 0o700); err != nil {
		return nil, fmt.Errorf("run folder: %v", err)
	}
	b.cert, b.key = filepath.Join(chainDir, "rpc.cert"), filepath.Join(chainDir, "rpc.key")
	if err := writeChainCert(b.cert, b.key, opts.Cluster.Engines); err != nil {
		return nil, err
	}
	b.spec = spec
	if err := b.writeStack(b.file, nil); err != nil {
		return nil, err
	}
	return b, nil
}

// writeChainCert makes btcd's RPC certificate, valid for the service name
// and every engine address (the harness dials btcd on its engine's address).
func writeChainCert(certPath, keyPath string, engines []Engine) error {
	hosts := []string{composefile.ChainService, "localhost", "127.0.0.1"}
	for _, e := range engines {
		hosts = append(hosts, e.Addr)
	}
	cert, key, err := btcutil.NewTLSCertPair("lnbench swarm btcd", time.Now().Add(30*24*time.Hour), hosts)
	if err != nil {
		return fmt.Errorf("btcd RPC certificate: %v", err)
	}
	if err := os.WriteFile(certPath, cert, 0o644); err != nil {
		return err
	}
	return os.WriteFile(keyPath, key, 0o600)
}

// docker runs the docker CLI against one engine of the cluster.
func (b *Backend) docker(ctx context.Context, host string, args ...string) (string, error) {
	return b.opts.Cluster.docker(ctx, host, args...)
}

func (b *Backend) Name() string  { return "swarm" }
func (b *Backend) RunID() string { return b.opts.RunID }

// File is the stack file's path; Stack the stack's name.
func (b *Backend) File() string  { return b.file }
func (b *Backend) Stack() string { return b.stack }

// Placement maps each service to the swarm node (engine) it runs on.
func (b *Backend) Placement() map[string]string {
	out := map[string]string{}
	for k, v := range b.placement {
		out[k] = v
	}
	return out
}

func (b *Backend) stackSpec(services []string) composefile.Stack {
	return composefile.Stack{Placement: b.placement, ChainCert: b.cert, ChainKey: b.key, Services: services}
}

// writeStack renders the spec (only services, or all when nil) to path;
// callers hold b.mu or own b.
func (b *Backend) writeStack(path string, services []string) error {
	data, err := composefile.GenerateStack(b.spec, b.stackSpec(services))
	if err != nil {
		return err
	}
	return composefile.WriteAtomic(path, data)
}

// deploy adds services to the started ones and deploys the stack of all
// of them through the manager.
func (b *Backend) deploy(ctx context.Context, service string, more ...string) error {
	b.deployMu.Lock()
	defer b.deployMu.Unlock()
	b.mu.Lock()
	for _, s := range append([]string{service}, more...) {
		if !slices.Contains(b.started, s) {
			b.started = append(b.started, s)
		}
	}
	services := append([]string(nil), b.started...)
	sort.Strings(services)
	part := filepath.Join(b.opts.WorkDir, "stack.deploy.yml")
	err := b.writeStack(part, services)
	if err == nil {
		err = b.writeStack(b.file, nil) // the artifacts copy has every service
	}
	pass := b.spec.Chain.RPCPass
	b.mu.Unlock()
	if err != nil {
		return err
	}
	_, err = b.opts.Cluster.dockerEnv(ctx, b.opts.Cluster.Manager.Host, []string{"LNBENCH_RPCPASS=" + pass},
		"stack", "deploy", "--resolve-image", "never", "-c", part, b.stack)
	if err != nil {
		return fmt.Errorf("deploying %s: %w", service, err)
	}
	return nil
}

// task is the state of a service's newest task, as the container core
// (backend/orchestrator) waits on it: Node is the swarm node it is placed
// on, Ports its published ports (on every engine of the swarm).
type task = orchestrator.Task

// taskOf reads the newest task of a service from the manager; the zero
// task when the service has none yet.
func (b *Backend) taskOf(ctx context.Context, service string) (task, error) {
	tasks, err := b.newestTasks(ctx, service)
	return tasks[service], err
}

// newestTasks reads the newest task of each of the stack's services named
// (every service of the stack when none is named) from the manager, by
// service name without the stack's prefix: the task `docker stack ps`
// lists first, the older ones being a service's earlier attempts.
func (b *Backend) newestTasks(ctx context.Context, services ...string) (map[string]task, error) {
	api := b.opts.Cluster.api(b.opts.Cluster.Manager.Host)
	svcs, err := api.Services(ctx, "com.docker.stack.namespace="+b.stack)
	if err != nil {
		return nil, err
	}
	nameOf := map[string]string{}
	var ids []string
	for _, s := range svcs {
		name := strings.TrimPrefix(s.Spec.Name, b.stack+"_")
		if len(services) == 0 || slices.Contains(services, name) {
			nameOf[s.ID] = name
			ids = append(ids, s.ID)
		}
	}
	tasks, err := api.Tasks(ctx, ids...)
	if err != nil {
		return nil, err
	}
	out := map[string]task{}
	var nodes map[string]string
	for _, t := range tasks { // newest first within a service
		name, ok := nameOf[t.ServiceID]
		if _, seen := out[name]; !ok || seen {
			continue
		}
		if nodes == nil {
			nodes = b.nodeNames(ctx)
		}
		out[name] = taskFrom(t, nodes)
	}
	return out, nil
}

// taskFrom reads a task document; nodes maps node IDs to hostnames.
func taskFrom(t dockerswarm.Task, nodes map[string]string) task {
	tk := task{ID: t.ID, State: string(t.Status.State), Err: t.Status.Err, Node: nodes[t.NodeID], Ports: map[int]int{}}
	tk.Ended = failedStates[tk.State]
	if tk.Node == "" {
		tk.Node = t.NodeID
	}
	if t.Status.ContainerStatus != nil {
		tk.Container = t.Status.ContainerStatus.ContainerID
	}
	tk.Running = tk.State == "running" && tk.Container != ""
	for _, p := range t.Status.PortStatus.Ports {
		if p.PublishedPort > 0 {
			tk.Ports[int(p.TargetPort)] = int(p.PublishedPort)
		}
	}
	return tk
}

var (
	nodeNamesMu sync.Mutex
	nodeNames   = map[string]map[string]string{}
)

// nodeNames maps swarm node IDs to hostnames (asked once per manager).
func (b *Backend) nodeNames(ctx context.Context) map[string]string {
	nodeNamesMu.Lock()
	defer nodeNamesMu.Unlock()
	host := b.opts.Cluster.Manager.Host
	if m := nodeNames[host]; len(m) > 0 {
		return m
	}
	m := map[string]string{}
	if nodes, err := b.opts.Cluster.api(host).Nodes(ctx); err == nil {
		for _, n := range nodes {
			m[n.ID] = n.Description.Hostname
		}
		nodeNames[host] = m
	}
	return m
}

// engineOf is the engine a task runs on.
func (b *Backend) engineOf(t task) (Engine, error) {
	e, ok := b.opts.Cluster.Engine(t.Node)
	if !ok {
		return Engine{}, fmt.Errorf("task %s runs on swarm node %s, which is not in the engines file", t.ID, t.Node)
	}
	return e, nil
}

// failedStates are the states a task ends in (the API's lowercase names).
var failedStates = map[string]bool{"failed": true, "rejected": true, "complete": true, "shutdown": true, "orphaned": true, "remove": true}

// waiting is how starts are waited on: the manager is asked for the
// task at every poll, 0.3 s apart (a start's readiness check dials the
// task's published port on its engine).
func (b *Backend) waiting() orchestrator.Wait {
	return orchestrator.Wait{Timeout: b.opts.StartTimeout, Every: 300 * time.Millisecond}
}

// onEngine adapts a readiness check that needs the engine a task runs on.
func (b *Backend) onEngine(ready func(t task, e Engine) bool) func(task) bool {
	return func(t task) bool {
		e, ok := b.opts.Cluster.Engine(t.Node)
		return ok && ready(t, e)
	}
}

// copyOut copies one file out of a task's container (running or stopped)
// through its engine.
func (b *Backend) copyOut(ctx context.Context, e Engine, container, src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	_, err := b.docker(ctx, e.Host, "cp", container+":"+src, dst)
	return err
}

// StartChain deploys btcd and waits until its RPC answers TLS on the
// published port of its engine.
func (b *Backend) StartChain(ctx context.Context, spec backend.ChainSpec) (backend.ChainEndpoint, error) {
	b.mu.Lock()
	b.spec.Chain = spec
	args := b.spec.BtcdConfig().Args()
	b.mu.Unlock()
	var host string
	_, err := b.waiting().Start(ctx, b, "chain", composefile.ChainService, b.onEngine(func(t task, e Engine) bool {
		p := t.Ports[composefile.BtcdRPCPort]
		if p == 0 {
			return false
		}
		host = net.JoinHostPort(e.Addr, strconv.Itoa(p))
		return backend.TLSAnswers(host, b.cert, e.Addr)
	}))
	if err != nil {
		return backend.ChainEndpoint{}, err
	}
	return backend.ChainEndpoint{RPCHost: host, CertPath: b.cert, User: spec.RPCUser, Pass: spec.RPCPass, Args: args}, nil
}

// StartNode deploys one lnd, copies its tls.cert and admin.macaroon out of
// its container once written, and waits until its gRPC answers TLS on the
// published port of its engine.
func (b *Backend) StartNode(ctx context.Context, spec backend.NodeSpec) (backend.NodeEndpoint, error) {
	if spec.Implementation != "" && spec.Implementation != "lnd" {
		return backend.NodeEndpoint{}, fmt.Errorf("node %s: implementation %q is not supported by the swarm backend", spec.Name, spec.Implementation)
	}
	b.mu.Lock()
	n, _, err := b.spec.StartNode(spec) // deploy writes the stack file anew
	if err != nil {
		b.mu.Unlock()
		return backend.NodeEndpoint{}, err
	}
	cfg := b.spec.LndConfig(n)
	b.mu.Unlock()
	network := b.chainNetwork()
	dir := filepath.Join(b.opts.WorkDir, spec.Name)
	ep := backend.NodeEndpoint{
		Name:         spec.Name,
		TLSCertPath:  filepath.Join(dir, "tls.cert"),
		MacaroonPath: filepath.Join(dir, "admin.macaroon"),
		PeerHost:     fmt.Sprintf("%s:%d", spec.Name, composefile.LndP2PPort),
		Args:         cfg.Args(),
	}
	if b.opts.Pprof {
		ep.PprofHost = fmt.Sprintf("%s:%d", spec.Name, composefile.LndPprofPort)
	}
	var lastCopy time.Time
	_, err = b.waiting().Start(ctx, b, "node", spec.Name, b.onEngine(func(t task, e Engine) bool {
		p := t.Ports[composefile.LndRPCPort]
		if p == 0 {
			return false
		}
		if !fileutil.NonEmpty(ep.MacaroonPath) {
			// docker cp costs a round trip to the engine: every 0.5 s at most.
			if time.Since(lastCopy) < 500*time.Millisecond {
				return false
			}
			lastCopy = time.Now()
			if b.copyOut(ctx, e, t.Container, "/data/tls.cert", ep.TLSCertPath) != nil ||
				b.copyOut(ctx, e, t.Container, lnd.MacaroonPath("/data", network), ep.MacaroonPath) != nil {
				os.Remove(ep.MacaroonPath)
				return false
			}
		}
		ep.RPCHost = net.JoinHostPort(e.Addr, strconv.Itoa(p))
		return backend.TLSAnswers(ep.RPCHost, ep.TLSCertPath, "localhost")
	}))
	if err != nil {
		return backend.NodeEndpoint{}, err
	}
	return ep, nil
}

// Where is the engine and container running a service's task.
func (b *Backend) Where(ctx context.Context, service string) (Engine, string, error) {
	t, err := b.taskOf(ctx, service)
	if err != nil || t.Container == "" {
		return Engine{}, "", fmt.Errorf("%s: no running task (%v)", service, err)
	}
	e, err := b.engineOf(t)
	return e, t.Container, err
}

// StopNode stops one node's container on its engine (SIGTERM, SIGKILL
// after 15 s); with restart_policy none, swarm does not start it again.
func (b *Backend) StopNode(ctx context.Context, name string) error {
	t, err := b.taskOf(ctx, name)
	if err != nil || t.Container == "" {
		return fmt.Errorf("stop %s: no running task (%v)", name, err)
	}
	e, err := b.engineOf(t)
	if err != nil {
		return err
	}
	_, err = b.docker(ctx, e.Host, "stop", "-t", "15", t.Container)
	return err
}

// startedServices lists the deployed services, sorted.
func (b *Backend) startedServices() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := append([]string(nil), b.started...)
	sort.Strings(out)
	return out
}

// CollectLogs writes each container's output to dir/<name>/container.log,
// copies lnd.log / btcd.log out of it, and records the engine that ran it
// in dir/<name>/engine.txt.
func (b *Backend) CollectLogs(ctx context.Context, dir string) error {
	down := b.lostEngines(ctx)
	var errs []error
	for _, name := range b.startedServices() {
		if err := b.unreachable(down, name); err != nil {
			errs = append(errs, fmt.Errorf("%s: no logs: %v", name, err))
			continue
		}
		// Each service's questions are bounded: one slow engine does not
		// take the time of the others' logs or of the teardown.
		sctx, cancel := context.WithTimeout(ctx, 2*callTimeout)
		errs = append(errs, b.collectLogs(sctx, dir, name)...)
		cancel()
	}
	return errors.Join(errs...)
}

// lostEngines asks every engine at once whether it answers: the names of
// those that do not, with why.
func (b *Backend) lostEngines(ctx context.Context) map[string]string {
	_, lost := b.opts.Cluster.probe(ctx, b.opts.Cluster.Engines)
	out := map[string]string{}
	for _, l := range lost {
		out[l.Engine.Name] = l.Err
	}
	return out
}

// unreachable says why a service's container cannot be reached when its
// engine, or the manager that knows its task, is among the lost ones.
func (b *Backend) unreachable(lost map[string]string, service string) error {
	m := b.opts.Cluster.Manager.Name
	if why, ok := lost[m]; ok {
		return fmt.Errorf("the swarm manager %s does not answer (%s)", m, why)
	}
	eng := b.placement[service]
	for _, sm := range b.samplers() {
		if sm.Service == service {
			eng = sm.Engine
		}
	}
	if why, ok := lost[eng]; ok {
		return fmt.Errorf("its engine %s does not answer (%s)", eng, why)
	}
	return nil
}

// chainNetwork is the chain's network ("simnet" or "regtest"): where lnd
// keeps its macaroon and logs.
func (b *Backend) chainNetwork() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(btcd.Network(b.spec.Chain.Network).Or())
}

// collectLogs copies one service's logs (and a node's traces) into dir.
func (b *Backend) collectLogs(ctx context.Context, dir, name string) []error {
	t, err := b.taskOf(ctx, name)
	if err != nil || t.Container == "" {
		return []error{fmt.Errorf("%s: no container (%v)", name, err)}
	}
	e, err := b.engineOf(t)
	if err != nil {
		return []error{err}
	}
	dst := filepath.Join(dir, name)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return []error{err}
	}
	var errs []error
	os.WriteFile(filepath.Join(dst, "engine.txt"), []byte(fmt.Sprintf("%s %s task %s container %s\n", e.Name, e.Addr, t.ID, t.Container)), 0o644)
	if err := containerLogs(ctx, e, t.Container, filepath.Join(dst, "container.log")); err != nil {
		errs = append(errs, fmt.Errorf("%s: %v", name, err))
	}
	if b.isSampler(name) {
		return errs // its windows were copied out when it stopped (CollectTraces)
	}
	network := b.chainNetwork()
	src := lnd.LogPath("/data", network)
	if name == composefile.ChainService {
		src = btcd.LogPath("/data", btcd.Network(network))
	}
	if err := b.copyOut(ctx, e, t.Container, src, filepath.Join(dst, filepath.Base(src))); err != nil {
		errs = append(errs, fmt.Errorf("%s: %v", name, err))
	}
	if name != composefile.ChainService {
		// Windows of a `docker exec … sample-loop.sh` in the node.
		if err := b.copyArtifacts(ctx, e, t.Container, b.opts.ArtifactsDir); err != nil {
			errs = append(errs, fmt.Errorf("%s: traces: %v", name, err))
		}
	}
	return errs
}

func containerLogs(ctx context.Context, e Engine, id, path string) error {
	return dockercli.LogsTo(ctx, []string{"-H", e.Host}, id, path)
}

// Teardown removes the stack through the manager, then sweeps every engine
// that answers by this run's (and network's) label, saying on the log
// what it does and waits for. It ends in bounded time (see Sweep) and
// returns an error only if something labelled is left: what, on which
// engine, and the engines that did not answer with the services that ran
// there (their containers and volumes stay on them).
func (b *Backend) Teardown(ctx context.Context) error {
	start := time.Now()
	log := b.opts.Log
	m := b.opts.Cluster.Manager
	fmt.Fprintf(log, "swarm: tearing down stack %s (manager %s)\n", b.stack, m.Name)
	var rmErr error
	if up, _ := b.opts.Cluster.probe(ctx, []Engine{m}); len(up) == 1 {
		rctx, cancel := context.WithTimeout(ctx, callTimeout)
		_, rmErr = b.docker(rctx, m.Host, "stack", "rm", b.stack)
		cancel()
	}
	filters := []string{"label=" + backend.Label + "=" + b.opts.RunID}
	if b.opts.Network != "" {
		filters = append(filters, "label="+composefile.NetworkLabel+"="+b.opts.Network)
	}
	r, err := Sweep(ctx, b.opts.Cluster, log, filters...)
	took := time.Since(start).Seconds()
	if err != nil {
		var le *LeftError
		if errors.As(err, &le) {
			started := b.startedServices()
			for i, l := range le.Lost {
				for _, svc := range b.servicesOn(l.Engine.Name) {
					if slices.Contains(started, svc) {
						le.Lost[i].Services = append(le.Lost[i].Services, svc)
					}
				}
				for _, sm := range b.samplers() {
					if sm.Engine == l.Engine.Name && slices.Contains(started, sm.Service) {
						le.Lost[i].Services = append(le.Lost[i].Services, sm.Service)
					}
				}
			}
		}
		if rmErr != nil {
			err = fmt.Errorf("%w (stack rm: %s)", err, lines.First(rmErr.Error()))
		}
		again := ""
		if errors.As(err, &le) && len(le.Lost) > 0 {
			again = " once " + strings.Join(le.Unreachable(), ", ") + " answers again"
		}
		return fmt.Errorf("teardown of stack %s ended after %.0f s having removed %s: %w; remove the rest with `lnbench down --backend swarm %s`%s", b.stack, took, r, err, b.opts.RunID, again)
	}
	fmt.Fprintf(log, "swarm: stack %s torn down in %.1f s (removed %s)\n", b.stack, took, r)
	return nil
}

// WatchEvery paces the runner's Dead: each question is two CLI calls to
// the manager, over the network.
func (b *Backend) WatchEvery() time.Duration { return 3 * time.Second }

// Dead lists the deployed services whose task is no longer running, and
// the services of the engines the swarm lost, each with what is known: the
// task's state and error, and from the container on its engine (when that
// engine answers) the exit code, OOM flag, memory limit and log tail.
// The manager's nodes, services and tasks answer the common case.
func (b *Backend) Dead(ctx context.Context) []backend.Death {
	m := b.opts.Cluster.Manager
	var out []backend.Death
	nodes, err := b.opts.Cluster.api(m.Host).Nodes(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return []backend.Death{{Actor: "swarm manager " + m.Name, ExitCode: -1, Where: m.Host,
			Reason: "does not answer: " + lines.First(err.Error())}}
	}
	used := map[string]bool{}
	for _, v := range b.placement {
		used[v] = true
	}
	seen := map[string]bool{}
	for _, n := range nodes {
		name, state := n.Description.Hostname, n.Status.State
		if state == dockerswarm.NodeStateReady || !used[name] {
			continue
		}
		for _, svc := range b.servicesOn(name) {
			seen[svc] = true
			out = append(out, backend.Death{Actor: svc, ExitCode: -1, Where: name,
				Reason: fmt.Sprintf("its engine was lost (swarm node %s is %s)", name, state)})
		}
	}
	tasks, err := b.newestTasks(ctx)
	if err != nil {
		return out
	}
	for _, svc := range slices.Sorted(maps.Keys(tasks)) {
		t := tasks[svc]
		if seen[svc] || !t.Ended {
			continue
		}
		out = append(out, b.Death(ctx, svc, t, 10))
	}
	return out
}

// Death describes a service whose task ended: the task's state and error
// from the manager, then what its engine says of the container.
func (b *Backend) Death(ctx context.Context, svc string, t task, n int) backend.Death {
	d := backend.Death{Actor: svc, ExitCode: -1, Where: t.Node, Reason: "task " + t.State}
	if code, ok := exitCodeOfTaskErr(t.Err); ok {
		d.ExitCode, d.Signal = code, backend.SignalOfExitCode(code)
	} else if t.Err != "" {
		d.Reason += ": " + t.Err
	}
	if e, err := b.engineOf(t); err == nil && t.Container != "" {
		if docs, err := b.opts.Cluster.api(e.Host).Inspect(ctx, t.Container); err == nil && docs[0].ContainerJSONBase != nil {
			c := backend.DeathOf(svc, docs[0].State, docs[0].HostConfig)
			d.ExitCode, d.Signal, d.OOM, d.MemoryLimit = c.ExitCode, c.Signal, c.OOM, c.MemoryLimit
		}
	}
	d.LogTail = backend.TailLines(orchestrator.Tail(ctx, b, t, n))
	return d
}

// exitCodeOfTaskErr reads the code in a task's error, "task: non-zero
// exit (137)".
func exitCodeOfTaskErr(s string) (int, bool) {
	i := strings.LastIndex(s, "exit (")
	if i < 0 {
		return 0, false
	}
	rest := s[i+len("exit ("):]
	j := strings.IndexByte(rest, ')')
	if j < 0 {
		return 0, false
	}
	code, err := strconv.Atoi(rest[:j])
	return code, err == nil
}

func (b *Backend) servicesOn(node string) []string {
	var out []string
	for s, n := range b.placement {
		if n == node {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}
