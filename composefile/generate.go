// Package composefile writes the docker-compose file of one lnbench network from
// the per-role fragments in docker-fragments/ and typed structs (see
// types.go for why not compose-go), marshalled with gopkg.in/yaml.v3.
//
// The generated file is a pure function of Spec: same inputs, same bytes
// (services and keys sorted). It works with `docker compose` (v2) and
// `docker-compose` (v1.29+), and by hand with plain `up`. Every service and
// the network carry the label lnbench.run=<run id>; ports are published only
// on 127.0.0.1 with host ports chosen by Docker; node data dirs are bind
// mounts of the run's work dir, written as the harness's uid:gid.
package composefile

import (
	"bytes"
	"cmp"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/chain/btcd"
	"github.com/lnbench/lnbench/dbserver/postgres"
	"github.com/lnbench/lnbench/node/lnd"
	"github.com/lnbench/lnbench/topology"
	"github.com/lnbench/lnbench/usage"
	"github.com/lnbench/lnbench/usage/limits"
)

// Names and ports inside the compose network.
const (
	ChainService   = "btcd"
	SamplerService = "sampler"
	NetworkName    = "lnbench"
	// NetworkLabel carries the network's name within the run.
	NetworkLabel = "lnbench.network"

	BtcdRPCPort  = 18556
	BtcdP2PPort  = 18555
	LndRPCPort   = 10009
	LndP2PPort   = 9735
	LndPprofPort = 6060
	// ClnRPCPort is the TCP bridge (socat) to lightningd's JSON-RPC socket;
	// CLN's peers use LndP2PPort and its perf samples LndPprofPort too, so
	// peers and the sampler reach every node the same way.
	ClnRPCPort = 9835

	// ContainerData is where a service's own folder is mounted.
	ContainerData = "/data"
	// ContainerChain is where lnd sees btcd's folder (read-only), for its RPC cert.
	ContainerChain = "/btcd"
)

// Limits cap one service's resources. The rules live in package
// usage/limits, which the scenario checks too, so a limit the scenario
// accepts is one this file can carry.
type Limits = limits.Limits

// Node is one actor: an lnd, or a Core Lightning node.
type Node struct {
	Name  string
	Image string
	// Implementation is "lnd" ("" too) or "cln".
	Implementation string
	DBBackend      string   // "" (bbolt) or "sqlite"
	ExtraArgs      []string // appended to lnd's flags
	Env            []string // "NAME=value" added to the service's environment
}

// Spec is everything that decides a generated file.
type Spec struct {
	RunID   string
	Network string // the network's name within the run; "" when there is one
	Project string // compose project name; default ProjectName(RunID, "")
	// WorkDir is the host folder whose <service>/ subfolders are bind-mounted
	// at /data; absolute.
	WorkDir    string
	User       string // "uid:gid" the containers run as
	ChainImage string
	Chain      backend.ChainSpec
	Nodes      []Node
	// Limits by service name (a node's name, or "btcd"); DefaultLimits
	// apply to every lnd actor without an entry.
	Limits        map[string]Limits
	DefaultLimits Limits
	// CPUSet pins every container of the network to these CPUs (the
	// kernel's list notation, e.g. 0-2): a duet round that splits the
	// cores. "" runs them on every CPU.
	CPUSet  string
	Pprof   bool // lnd serves pprof on <name>:6060 inside the network
	Sampler bool // include the sampler sidecar
	// SamplerArgs are the sidecar's sampling flags (mode, periods, origin);
	// the generator adds --listen, --out and one --target per node.
	SamplerArgs []string
	// Tool is the host path of a static lnbench binary, mounted read-only
	// at /usr/local/bin/lnbench in actors and the sampler (sample-loop.sh
	// and the sidecar run it); "" mounts nothing.
	Tool string
	// BitcoinCLI is the host path of CLN nodes' bitcoin-cli (the standalone
	// shim beside Tool, bitcoincli.Beside); "" mounts Tool there.
	BitcoinCLI string
	// Artifacts is the host folder mounted at /artifacts in actors and the
	// sampler, where <Actor>_traces/ are written; "" mounts nothing.
	Artifacts string
	// PostgresImage runs the PostgreSQL server of db=postgres nodes
	// (imagebuild.EnsurePostgres); "" when no node is on it.
	PostgresImage string
	// PerfSeccomp is the host path of the seccomp profile CLN containers
	// run with (PerfSeccomp: perf allowed); "" leaves Docker's default, and
	// perf then fails inside them.
	PerfSeccomp string
	Fragments   Fragments
}

// RPCPassVar keeps the chain's RPC password out of the file (it lands in
// the artifacts): compose substitutes it from the environment the backend
// sets, and a plain `docker-compose up` of the file falls back to "lnbench".
const RPCPassVar = "${LNBENCH_RPCPASS:-lnbench}"

// Container paths of the tool and the artifacts folder.
const (
	ContainerTool      = "/usr/local/bin/lnbench"
	ContainerArtifacts = "/artifacts"
	SamplerControlPort = 7070
)

var projectBad = regexp.MustCompile(`[^a-z0-9_-]+`)

// ProjectName is "lnbench-<run id>" (plus "-<network>" when given),
// lowercased and reduced to [a-z0-9_-] as compose requires.
func ProjectName(runID, network string) string {
	s := "lnbench-" + runID
	if network != "" {
		s += "-" + network
	}
	return projectBad.ReplaceAllString(strings.ToLower(s), "-")
}

// FileName is docker-compose.yml, or docker-compose.<network>.yml when a
// run has several networks.
func FileName(network string) string {
	if network == "" {
		return "docker-compose.yml"
	}
	return "docker-compose." + strings.Trim(projectBad.ReplaceAllString(strings.ToLower(network), "_"), "_") + ".yml"
}

var userRe = regexp.MustCompile(`^[0-9]+:[0-9]+$`)

func (s Spec) project() string {
	if s.Project != "" {
		return s.Project
	}
	return ProjectName(s.RunID, "")
}

func (s Spec) validate() error {
	if s.RunID == "" {
		return fmt.Errorf("compose: run id is empty")
	}
	if !filepath.IsAbs(s.WorkDir) {
		return fmt.Errorf("compose: work dir %q must be absolute (bind mounts)", s.WorkDir)
	}
	if !userRe.MatchString(s.User) {
		return fmt.Errorf("compose: user %q: want uid:gid", s.User)
	}
	if s.ChainImage == "" {
		return fmt.Errorf("compose: no image for btcd")
	}
	if len(s.Nodes) == 0 {
		return fmt.Errorf("compose: no nodes")
	}
	seen := map[string]bool{}
	for _, n := range s.Nodes {
		if err := topology.ValidateName(n.Name); err != nil {
			return fmt.Errorf("compose: node %v", err)
		}
		switch {
		case seen[n.Name]:
			return fmt.Errorf("compose: node %q twice", n.Name)
		case n.Image == "":
			return fmt.Errorf("compose: node %q has no image", n.Name)
		}
		seen[n.Name] = true
	}
	for name, l := range s.Limits {
		if !seen[name] && name != ChainService {
			return fmt.Errorf("compose: limits for %q, which is not a service", name)
		}
		if err := l.Validate(); err != nil {
			return fmt.Errorf("compose: limits for %s: %v", name, err)
		}
	}
	if err := s.DefaultLimits.Validate(); err != nil {
		return fmt.Errorf("compose: default limits: %v", err)
	}
	for _, role := range []string{usage.RoleChain, RoleLND, RoleCLN} {
		if _, ok := s.Fragments[role]; !ok {
			return fmt.Errorf("compose: fragment %s is not loaded", FragmentFiles[role])
		}
	}
	if !s.Fragments[usage.RoleChain].publishes(BtcdRPCPort) {
		return fmt.Errorf("compose: %s must publish btcd's RPC port as \"127.0.0.1::%d\"", FragmentFiles[usage.RoleChain], BtcdRPCPort)
	}
	if !s.Fragments[RoleLND].publishes(LndRPCPort) {
		return fmt.Errorf("compose: %s must publish lnd's gRPC port as \"127.0.0.1::%d\"", FragmentFiles[RoleLND], LndRPCPort)
	}
	if !s.Fragments[RoleCLN].publishes(ClnRPCPort) {
		return fmt.Errorf("compose: %s must publish lightningd's RPC bridge as \"127.0.0.1::%d\"", FragmentFiles[RoleCLN], ClnRPCPort)
	}
	for _, n := range s.Nodes {
		if n.OnPostgres() && s.PostgresImage == "" {
			return fmt.Errorf("compose: node %s is on db=postgres but no PostgreSQL image was given", n.Name)
		}
	}
	for _, n := range s.Nodes {
		if n.IsCLN() && s.Tool == "" {
			return fmt.Errorf("compose: node %s is Core Lightning: its bitcoin-cli is the lnbench binary, so Tool (a static lnbench) must be mounted", n.Name)
		}
	}
	if s.Sampler {
		if err := s.checkSampler("compose file"); err != nil {
			return err
		}
		if s.Tool == "" || s.Artifacts == "" {
			return fmt.Errorf("compose: the sampler needs Tool (a static lnbench) and Artifacts mounted")
		}
	}
	return nil
}

// checkSampler checks what any sampler needs: pprof on, and the fragment
// loaded, publishing only its control port.
func (s Spec) checkSampler(what string) error {
	if !s.Pprof {
		return fmt.Errorf("%s: the sampler needs the nodes' pprof endpoints; enable Pprof too", what)
	}
	f, ok := s.Fragments[usage.RoleSampler]
	if !ok {
		return fmt.Errorf("%s: fragment %s is not loaded", what, FragmentFiles[usage.RoleSampler])
	}
	if len(f.Published) != 1 || !f.publishes(SamplerControlPort) {
		return fmt.Errorf("%s: %s must publish only its control port as \"127.0.0.1::%d\" (pprof stays inside the network)", what, FragmentFiles[usage.RoleSampler], SamplerControlPort)
	}
	return nil
}

// BtcdConfig is btcd's configuration as the container sees it.
func (s Spec) BtcdConfig() btcd.Config {
	return btcd.Config{
		DataDir: path.Join(ContainerData, "data"), LogDir: path.Join(ContainerData, "logs"),
		RPCListen: fmt.Sprintf("0.0.0.0:%d", BtcdRPCPort), P2PListen: fmt.Sprintf("0.0.0.0:%d", BtcdP2PPort),
		RPCUser: s.Chain.RPCUser, RPCPass: RPCPassVar,
		RPCCert: path.Join(ContainerData, "rpc.cert"), RPCKey: path.Join(ContainerData, "rpc.key"),
		MiningAddr: s.Chain.MiningAddr, Clients: len(s.Nodes), Network: btcd.Network(s.Chain.Network),
	}
}

// LndConfig is one node's lnd configuration as its container sees it.
func (s Spec) LndConfig(n Node) lnd.Config {
	c := lnd.Config{
		Alias: n.Name, LndDir: ContainerData,
		RPCListen: fmt.Sprintf("0.0.0.0:%d", LndRPCPort), P2PListen: fmt.Sprintf("0.0.0.0:%d", LndP2PPort),
		// The harness dials 127.0.0.1:<published> as "localhost"; peers and
		// the sampler use the service name.
		TLSExtraDomains: []string{n.Name, "localhost"},
		BtcdRPCHost:     fmt.Sprintf("%s:%d", ChainService, BtcdRPCPort),
		BtcdRPCUser:     s.Chain.RPCUser, BtcdRPCPass: RPCPassVar,
		BtcdRPCCert: path.Join(ContainerChain, "rpc.cert"),
		DBBackend:   n.DBBackend, Extra: n.ExtraArgs, Network: s.Chain.Network,
	}
	if n.OnPostgres() {
		c.PostgresDSN = postgres.ComposeDSN(n.Name)
	}
	if s.Pprof {
		c.PprofListen = fmt.Sprintf("0.0.0.0:%d", LndPprofPort)
	}
	return c
}

// Build assembles the file.
func (s Spec) Build() (File, error) {
	if err := s.validate(); err != nil {
		return File{}, err
	}
	runLabels := map[string]string{backend.Label: s.RunID}
	if s.Network != "" {
		runLabels[NetworkLabel] = s.Network
	}
	withRun := func(m map[string]string) map[string]string {
		out := cloneMap(m)
		if out == nil {
			out = map[string]string{}
		}
		for k, v := range runLabels {
			out[k] = v
		}
		return out
	}
	mount := func(service string) Mount {
		return Mount{Type: "bind", Source: filepath.Join(s.WorkDir, service), Target: ContainerData}
	}
	// extras mounts the tool and the artifacts folder where configured.
	extras := func() []Mount {
		var ms []Mount
		if s.Tool != "" {
			ms = append(ms, Mount{Type: "bind", Source: s.Tool, Target: ContainerTool, ReadOnly: true})
		}
		if s.Artifacts != "" {
			ms = append(ms, Mount{Type: "bind", Source: s.Artifacts, Target: ContainerArtifacts})
		}
		return ms
	}
	limit := func(svc *Service, l Limits) {
		svc.CPUs, svc.MemLimit = l.CPUs, Quoted(l.ComposeMemory())
	}
	f := File{
		Networks: map[string]Network{NetworkName: {Labels: withRun(nil)}},
		Services: map[string]Service{},
	}

	chain := s.Fragments[usage.RoleChain].Service.clone()
	chain.Image = s.ChainImage
	chain.Command = s.BtcdConfig().Args()
	chain.Hostname = ChainService
	chain.User = Quoted(s.User)
	chain.Volumes = []Mount{mount(ChainService)}
	chain.Networks = []string{NetworkName}
	chain.Labels = withRun(chain.Labels)
	harden(&chain)
	// btcd creates its default home dir (the user's, from /etc/passwd)
	// whatever --datadir says, so its root stays writable.
	chain.ReadOnly = false
	limit(&chain, s.Limits[ChainService])
	f.Services[ChainService] = chain

	var names []string
	for _, n := range s.Nodes {
		svc := s.Fragments[n.role()].Service.clone()
		svc.Image = n.Image
		svc.Command = s.NodeArgs(n)
		svc.Hostname = n.Name
		svc.User = Quoted(s.User)
		chainMount := mount(ChainService)
		chainMount.Target, chainMount.ReadOnly = ContainerChain, true
		svc.Volumes = append([]Mount{mount(n.Name), chainMount}, extras()...)
		if n.IsCLN() {
			// Reached as bitcoin-cli, the lnbench binary is the shim (or
			// the standalone shim, BitcoinCLI); as the plugin's name, the
			// route log plugin.
			svc.Volumes = append(svc.Volumes, Mount{Type: "bind", Source: cmp.Or(s.BitcoinCLI, s.Tool), Target: ContainerBitcoinCLI, ReadOnly: true},
				Mount{Type: "bind", Source: s.Tool, Target: ContainerRoutePlugin, ReadOnly: true})
		}
		// sample-loop.sh names the traces folder after the actor.
		svc.Environment = cloneMap(svc.Environment)
		if svc.Environment == nil {
			svc.Environment = map[string]string{}
		}
		svc.Environment["LNBENCH_ACTOR"] = n.Name
		for _, kv := range n.Env {
			if k, v, ok := strings.Cut(kv, "="); ok {
				svc.Environment[k] = v
			}
		}
		svc.Networks = []string{NetworkName}
		svc.Labels = withRun(svc.Labels)
		svc.DependsOn = map[string]Dependency{ChainService: {Condition: "service_healthy"}}
		if n.OnPostgres() {
			svc.DependsOn[postgres.Actor] = Dependency{Condition: "service_started"}
		}
		harden(&svc)
		if n.IsCLN() && s.PerfSeccomp != "" {
			svc.SecurityOpt = append(svc.SecurityOpt, "seccomp="+s.PerfSeccomp)
		}
		l, ok := s.Limits[n.Name]
		if !ok {
			l = s.DefaultLimits
		}
		limit(&svc, l)
		f.Services[n.Name] = svc
		names = append(names, n.Name)
	}

	if db := s.postgresService(withRun); db != nil {
		f.Services[postgres.Actor] = *db
	}
	if s.Sampler {
		svc := s.Fragments[usage.RoleSampler].Service.clone()
		svc.Image = s.ChainImage
		svc.Hostname = SamplerService
		svc.User = Quoted(s.User)
		svc.Volumes = append([]Mount{mount(SamplerService)}, extras()...)
		svc.Networks = []string{NetworkName}
		svc.Labels = withRun(svc.Labels)
		harden(&svc)
		sort.Strings(names)
		svc.Command = []string{"--listen", fmt.Sprintf("0.0.0.0:%d", SamplerControlPort), "--out", ContainerArtifacts}
		svc.Command = append(svc.Command, s.SamplerArgs...)
		for _, n := range names {
			svc.Command = append(svc.Command, "--target", fmt.Sprintf("%s=http://%s:%d", n, n, LndPprofPort))
		}
		svc.DependsOn = map[string]Dependency{}
		for _, n := range names {
			svc.DependsOn[n] = Dependency{Condition: "service_started"}
		}
		f.Services[SamplerService] = svc
	}
	if s.CPUSet != "" {
		for name, svc := range f.Services {
			svc.CPUSet = s.CPUSet
			f.Services[name] = svc
		}
	}
	return f, nil
}

// PostgresDatabases are the db=postgres nodes' databases (one per node,
// named after it), sorted: the server's entrypoint makes them.
func (s Spec) PostgresDatabases() []string {
	var dbs []string
	for _, n := range s.Nodes {
		if n.OnPostgres() {
			dbs = append(dbs, n.Name)
		}
	}
	sort.Strings(dbs)
	return dbs
}

// postgresService is the PostgreSQL server of the db=postgres nodes (nil
// without one): its cluster in the container's own writable layer (on the
// engine's disk, so its syncs are real; gone with the container), reached
// by the nodes only, over the network; the password comes from the
// environment like btcd's.
func (s Spec) postgresService(withRun func(map[string]string) map[string]string) *Service {
	dbs := s.PostgresDatabases()
	if len(dbs) == 0 {
		return nil
	}
	svc := Service{Image: s.PostgresImage, Hostname: postgres.Actor, Command: postgres.ContainerConfig().Args(),
		Environment: map[string]string{"LNBENCH_PGPASS": postgres.PassVar, "LNBENCH_PGDATABASES": strings.Join(dbs, " ")},
		Networks:    []string{NetworkName}, Labels: withRun(nil)}
	harden(&svc)
	svc.ReadOnly = false // the cluster is in the container's layer
	return &svc
}

// harden takes from an actor's container what no node needs: every
// capability, privilege gain (setuid), and writes outside its mounts (the
// root filesystem is read-only; /tmp is a small tmpfs).
func harden(svc *Service) {
	svc.CapDrop = []string{"ALL"}
	svc.SecurityOpt = []string{"no-new-privileges:true"}
	svc.ReadOnly = true
	svc.Tmpfs = []string{"/tmp"}
}

// Generate renders the file: a header comment, then the YAML.
func Generate(s Spec) ([]byte, error) {
	f, err := s.Build()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	where := "run " + s.RunID
	if s.Network != "" {
		where += ", network " + s.Network
	}
	fmt.Fprintf(&buf, "# Generated by lnbench for %s. Do not edit: every run writes its own.\n", where)
	// The data dirs are bind mounts the harness made (wallets, TLS, keys):
	// this file starts the network only while they exist.
	fmt.Fprintf(&buf, "# Data dirs: bind mounts under %s, made by the harness; they live as long as the run (or `lnbench up`).\n", s.WorkDir)
	fmt.Fprintf(&buf, "# While they do: docker-compose -p %s -f <this file> ps|logs|exec   (or docker compose …);\n", s.project())
	fmt.Fprintf(&buf, "#   e.g. exec alice lncli --network=simnet --lnddir=/data getinfo. For a network that stays up: lnbench up.\n")
	fmt.Fprintf(&buf, "# Clean up: lnbench down %s   (removes everything labelled %s=%s)\n", s.RunID, backend.Label, s.RunID)
	return encode(&buf, f)
}

// encode appends f as YAML (two-space indent) to the header in buf.
func encode(buf *bytes.Buffer, f File) ([]byte, error) {
	enc := yaml.NewEncoder(buf)
	enc.SetIndent(2)
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// AddNodes appends the topology's nodes to the spec, each as NodeOf
// describes it, with a node's own cpus/memory (topology `cpus:`,
// `memory:`) over the run's limits field by field; btcd runs the first
// node's image when the spec names none. The compose and swarm backends
// build their specs with it, so both apply a node's own limits.
func (s *Spec) AddNodes(nodes []topology.Node, images map[string]string, configs map[string]backend.NodeConfig, def backend.NodeConfig) error {
	for _, n := range nodes {
		node, err := NodeOf(n, images, configs, def)
		if err != nil {
			return err
		}
		if s.ChainImage == "" {
			s.ChainImage = node.Image
		}
		s.Nodes = append(s.Nodes, node)
		if own := n.Limits(); !own.Zero() {
			s.Limits = withNodeLimits(s.Limits, n.Name, own, s.DefaultLimits)
		}
	}
	return nil
}

// withNodeLimits returns limits (copied) with a topology node's own limits
// over the run's defaults, field by field.
func withNodeLimits(limits map[string]Limits, name string, own, def Limits) map[string]Limits {
	out := map[string]Limits{}
	for k, v := range limits {
		out[k] = v
	}
	l, ok := out[name]
	if !ok {
		l = def
	}
	if own.CPUs > 0 {
		l.CPUs = own.CPUs
	}
	if own.Memory != "" {
		l.Memory = own.Memory
	}
	out[name] = l
	return out
}

// Refresh sets what a start asks of the node (database backend, flags,
// environment) and says whether that changed it: the backend then
// rewrites its file before starting the node.
func (n *Node) Refresh(spec backend.NodeSpec) bool {
	if n.DBBackend == spec.DBBackend && slices.Equal(n.ExtraArgs, spec.ExtraArgs) && slices.Equal(n.Env, spec.Env) {
		return false
	}
	n.DBBackend = spec.DBBackend
	n.ExtraArgs = append([]string(nil), spec.ExtraArgs...)
	n.Env = append([]string(nil), spec.Env...)
	return true
}

// StartNode is what both container backends do before starting a node:
// find it, check the chain was started and the implementation is the
// file's, and take what the start asks (Refresh). It returns the node as
// it will run and whether the file must be written anew. Callers hold
// their backend's lock.
func (s *Spec) StartNode(spec backend.NodeSpec) (Node, bool, error) {
	i := slices.IndexFunc(s.Nodes, func(n Node) bool { return n.Name == spec.Name })
	if i < 0 {
		var names []string
		for _, n := range s.Nodes {
			names = append(names, n.Name)
		}
		return Node{}, false, fmt.Errorf("node %s is not in this network's topology (it has %s)", spec.Name, strings.Join(names, ", "))
	}
	if s.Chain.RPCUser == "" {
		return Node{}, false, fmt.Errorf("node %s: start the chain first", spec.Name)
	}
	n := s.Nodes[i]
	if impl := spec.Implementation; impl != "" && impl != n.Implementation && !(impl == "lnd" && n.Implementation == "") {
		return Node{}, false, fmt.Errorf("node %s: asked to start %s, but the network runs it as %q", spec.Name, impl, n.Implementation)
	}
	changed := n.Refresh(spec)
	s.Nodes[i] = n
	return n, changed, nil
}

// NodeOf is the service description of topology node n: its image (by its
// spec's build key), then its database and flags from its spec's config, or
// def when the spec has none.
func NodeOf(n topology.Node, images map[string]string, configs map[string]backend.NodeConfig, def backend.NodeConfig) (Node, error) {
	ref := backend.NodeSpec{Implementation: n.Implementation, Version: n.Version, Build: n.Build}.BuildRef()
	img := images[ref]
	if img == "" {
		return Node{}, fmt.Errorf("node %s: no image for %s %s (build %s); lnbench run and lnbench up build one per spec of the scenario", n.Name, n.Implementation, n.Version, ref)
	}
	cfg, ok := configs[n.Spec]
	if !ok {
		cfg = def
	}
	return Node{Name: n.Name, Image: img, Implementation: n.Implementation, DBBackend: cfg.DBBackend, ExtraArgs: cfg.Args, Env: cfg.Env}, nil
}
