package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/backend/compose"
	"github.com/lnbench/lnbench/backend/swarm"
	"github.com/lnbench/lnbench/internal/runs"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/node/drivers"
	"github.com/lnbench/lnbench/runner"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/topology"
)

// upCmd brings a topology up in containers and leaves it running for
// manual use; `lnbench down <run id>` removes it.
func upCmd(stdout, stderr io.Writer) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "up [scenario.yml | topology.yml | AlicePaysBob | AlicePaysBobViaCarol | AlicesPayBob]",
		Short: "Bring a funded topology up in containers and leave it running (remove it with lnbench down <run id>)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return up(cmd.Context(), stdout, stderr, args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.params, "param", nil, "topology param, e.g. CarolsCount=2 or AliceCount=3")
	addNetworkFlags(fl, &f)
	fl.StringVar(&f.backend, "backend", "compose", "compose (this engine) or swarm (the engines of an existing swarm; remove with lnbench down --backend swarm <run id>)")
	fl.StringVar(&f.swarmEngines, "swarm-engines", "", "swarm: the engines file, one \"hostname address DOCKER_HOST\" per line (default $"+swarm.EnginesEnv+", else the one scripts/testbed-engines.sh writes)")
	return cmd
}

// upScenario reads what to bring up: a scenario, a topology file or name.
func upScenario(args []string, f runFlags) (scenario.Scenario, error) {
	s := scenario.Default()
	s.Params = nil
	if len(args) == 1 {
		a := args[0]
		_, builtin := topology.Builtin[a]
		switch {
		case builtin:
			s.Name, s.Topology = a, a
		case topology.IsFile(a):
			if _, err := topology.Load(a); err == nil {
				s.Name, s.Topology = "custom", a
			} else if sc, serr := scenario.Load(a); serr == nil {
				s = sc
			} else {
				return s, fmt.Errorf("%s is neither a topology file (%v) nor a scenario file (%v)", a, err, serr)
			}
		default:
			return s, fmt.Errorf("%q: give a scenario or topology .yml file, or %s", a, topology.BuiltinNames())
		}
	}
	f.quick = false
	s, err := loadOverrides(s, f)
	if err != nil {
		return s, err
	}
	return s, checkScenario(s)
}

func loadOverrides(s scenario.Scenario, f runFlags) (scenario.Scenario, error) {
	var ps []scenario.Param
	for _, p := range f.params {
		pp, err := scenario.ParseOverride(p)
		if err != nil {
			return s, err
		}
		ps = append(ps, pp)
	}
	s = s.Override(ps)
	s, err := applyNodeFlags(s, f)
	if err != nil {
		return s, err
	}
	return s, s.Validate()
}

func up(ctx context.Context, stdout, stderr io.Writer, args []string, f runFlags) (err error) {
	if err := f.validate(); err != nil {
		return err
	}
	s, err := upScenario(args, f)
	if err != nil {
		return err
	}
	cases := s.Cases()
	if len(cases) != 1 {
		return fmt.Errorf("lnbench up brings one network up; the params give %d cases: pin each param to one value with --param (and name one node spec with --node)", len(cases))
	}
	if _, err := s.CaseTopology(cases[0]); err != nil {
		return err
	}
	var cluster swarm.Cluster
	kind, ok := backendKinds[f.backend]
	if f.backend == "" {
		kind, ok = backendKinds["compose"], true
	}
	if !ok || !kind.outlives {
		return fmt.Errorf("--backend %q: lnbench up takes a backend whose containers outlive the command (compose or swarm)", f.backend)
	}
	if kind.engines {
		if _, _, err := chooseBackend(kind.name); err != nil {
			return err
		}
		if cluster, err = swarmCluster(ctx, f.swarmEngines, s); err != nil {
			return err
		}
	} else if chosen, note, _ := chooseBackend("auto"); chosen.name != kind.name {
		return fmt.Errorf("lnbench up needs a Docker engine: containers outlive the command (%s); for local processes use lnbench run", note)
	}
	images, err := findImages(f.images)
	if err != nil {
		return err
	}
	bins, err := ensureBuilds(ctx, images, f.cache, &s, stderr)
	if err != nil {
		return err
	}
	if err := bins.ensureImages(ctx, images, stderr); err != nil {
		return err
	}
	var swarmImgs map[string]string
	if kind.engines {
		if swarmImgs, err = swarmImages(ctx, bins, false, stderr); err != nil {
			return err
		}
		if err := distributeImages(ctx, cluster, swarmImgs, stderr); err != nil {
			return err
		}
	}
	// With the build keys known, the topology's nodes carry them.
	topo, err := s.CaseTopology(cases[0])
	if err != nil {
		return err
	}
	configs, _, err := runner.NodeSetup(drivers.Builtin(), s, nil)
	if err != nil {
		return err
	}
	run, err := runner.NewRun(f.artifacts, "up-"+topo.Name)
	if err != nil {
		return err
	}
	// The data dirs must outlive this command; `lnbench down` removes them.
	work := filepath.Join(runs.Root(), run.ID)
	if err := runs.Claim(work); err != nil {
		return err
	}
	ns := runner.NetworkSpec{RunID: run.ID, WorkDir: work, ArtifactsDir: run.Dir, Topology: topo, Origin: time.Now(), NodeConfigs: configs}
	var be backend.Backend
	if kind.engines {
		be, err = newSwarmBackend(ctx, ns, s, swarmImgs, bins.chain, cluster, false, f.startTimeout, stderr)
	} else {
		be, err = newComposeBackend(ctx, ns, s, bins, false, f.startTimeout, stderr)
	}
	if err != nil {
		os.RemoveAll(work)
		return err
	}
	defer func() {
		if err != nil { // nothing half-started stays behind
			tctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if terr := be.Teardown(tctx); terr != nil {
				fmt.Fprintf(stderr, "tearing down: %v\n", terr)
			}
			os.RemoveAll(work)
		}
	}()
	// A node that dies while the network sets up ends the setup at once.
	watch := runner.WatchSetup(ctx, run.ID, be, stderr)
	net, err := network.Up(watch.Context(), be, topo, network.Options{Drivers: drivers.Builtin(), DBBackend: s.Node.DBBackend, NodeArgs: s.Node.Flags, Configs: configs, Log: stderr,
		OnPhase: watch.OnPhase})
	err = watch.Explain(err)
	watch.Stop()
	if net != nil {
		defer net.Close()
	}
	if err != nil {
		return err
	}
	if sb, ok := be.(*swarm.Backend); ok {
		printSwarmUp(ctx, stdout, sb, net, topo, run.ID)
		return nil
	}
	cb := be.(*compose.Backend)
	fmt.Fprintf(stdout, "%s is up (run id %s); compose file %s\n\n", topo, run.ID, cb.File())
	chain := network.ChainNetwork(topo)
	for _, n := range net.Names() {
		c, _ := cb.ContainerName(ctx, n)
		if isCLN(topo, n) {
			fmt.Fprintf(stdout, "%-8s docker exec %s lightning-cli --lightning-dir=/data --network=%s getinfo\n", n, strings.TrimPrefix(c, "/"), chain)
			fmt.Fprintf(stdout, "         JSON-RPC bridge 127.0.0.1 port %s, pubkey %s\n", portOf(net.Endpoints[n].RPCHost), net.PubKeys[n])
			continue
		}
		fmt.Fprintf(stdout, "%-8s docker exec %s lncli --network=%s --lnddir=/data --rpcserver=localhost:10009 getinfo\n", n, strings.TrimPrefix(c, "/"), chain)
		fmt.Fprintf(stdout, "         gRPC 127.0.0.1 port %s, pubkey %s\n", portOf(net.Endpoints[n].RPCHost), net.PubKeys[n])
	}
	if c, err := cb.ContainerName(ctx, "btcd"); err == nil {
		fmt.Fprintf(stdout, "%-8s docker exec %s btcctl --%s --rpcuser=%s --rpcpass=%s --rpccert=/data/rpc.cert --rpcserver=localhost:18556 generate 1\n",
			"btcd", strings.TrimPrefix(c, "/"), chain, net.ChainEP.User, net.ChainEP.Pass)
	}
	fmt.Fprintf(stdout, "\nremove it with: lnbench down %s\n", run.ID)
	return nil
}

func isCLN(topo topology.Topology, name string) bool {
	for _, n := range topo.Nodes {
		if n.Name == name {
			return n.Implementation == "cln"
		}
	}
	return false
}

func portOf(hostPort string) string {
	if i := strings.LastIndexByte(hostPort, ':'); i >= 0 {
		return hostPort[i+1:]
	}
	return hostPort
}

// printSwarmUp says where each node of a swarm network runs and how to
// reach it: docker against its engine, gRPC on the engine's address.
func printSwarmUp(ctx context.Context, stdout io.Writer, sb *swarm.Backend, net *network.Network, topo topology.Topology, id string) {
	fmt.Fprintf(stdout, "%s is up on the swarm (run id %s, stack %s); stack file %s\n\n", topo, id, sb.Stack(), sb.File())
	for _, n := range net.Names() {
		e, c, _ := sb.Where(ctx, n)
		fmt.Fprintf(stdout, "%-8s docker -H %s exec %s lncli --network=simnet --lnddir=/data --rpcserver=localhost:10009 getinfo\n", n, e.Host, c)
		fmt.Fprintf(stdout, "         engine %s, gRPC %s, pubkey %s\n", e.Name, net.Endpoints[n].RPCHost, net.PubKeys[n])
	}
	if e, c, err := sb.Where(ctx, "btcd"); err == nil {
		fmt.Fprintf(stdout, "%-8s docker -H %s exec %s btcctl --simnet --rpcuser=%s --rpcpass=%s --rpccert=/data/rpc.cert --rpcserver=localhost:18556 generate 1\n",
			"btcd", e.Host, c, net.ChainEP.User, net.ChainEP.Pass)
	}
	fmt.Fprintf(stdout, "\nremove it with: lnbench down --backend swarm %s\n", id)
}
