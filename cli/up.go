package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/backend/driver"
	"github.com/lnbench/lnbench/buildset"
	"github.com/lnbench/lnbench/internal/runs"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/node/drivers"
	"github.com/lnbench/lnbench/runner"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/topology"
	"github.com/lnbench/lnbench/usage/guard"
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
	fl.StringVar(&f.backend, "backend", defaultUpBackend(), "where the containers run: "+driver.Either(driver.Names(outlives))+" (remove them with lnbench down --backend NAME <run id>)")
	fl.StringVar(&f.swarmEngines, "swarm-engines", "", driver.EnginesHelp)
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
	if err := runner.CheckRoutes(s, nil); err != nil {
		return err
	}
	if f.backend == "" {
		f.backend = defaultUpBackend()
	}
	d, ok := driver.Lookup(f.backend)
	if !ok || !d.Caps().Outlives {
		return fmt.Errorf("--backend %q: lnbench up takes a backend whose containers outlive the command (%s)", f.backend, driver.Either(driver.Names(outlives)))
	}
	if err := d.Probe(ctx); err != nil {
		return fmt.Errorf("lnbench up --backend %s: %v: containers outlive the command; %s; for local processes use lnbench run", d.Name(), err, d.Fix())
	}
	tool, toolErr := staticSelf()
	site, err := d.Open(ctx, driver.Options{EnginesFile: f.swarmEngines, Tool: tool, ToolErr: toolErr, Log: stderr})
	if err != nil {
		return err
	}
	images, err := findImages(f.images)
	if err != nil {
		return err
	}
	bins, err := buildset.Ensure(ctx, images, f.cache, &s, stderr)
	if err != nil {
		return err
	}
	if err := bins.EnsureImages(ctx, images, stderr); err != nil {
		return err
	}
	if err := site.Stage(ctx, driver.Stage{Builds: bins.ForBackend(), Faults: s.Faults}); err != nil {
		return err
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
	be, err := site.Network(ctx, networkOf(ns, s, false, f.startTimeout))
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
	net, err := network.Up(watch.Context(), be, topo, network.Options{Drivers: drivers.Builtin(), DBBackend: s.Node.DBBackend, NodeArgs: s.Node.Flags, Configs: configs, Log: stderr, NodeBytes: guard.NodeBytes(s), StartsPerCore: guard.StartsPerCore(s),
		OnPhase: watch.OnPhase})
	err = watch.Explain(err)
	watch.Stop()
	if net != nil {
		defer net.Close()
	}
	if err != nil {
		return err
	}
	site.Describe(ctx, stdout, be, net, topo, run.ID)
	return nil
}

// outlives selects the backends lnbench up and down work with.
func outlives(c driver.Caps) bool { return c.Outlives }

// defaultUpBackend is the backend up and down take unless told: the first
// whose containers outlive the command on this machine's one engine.
func defaultUpBackend() string {
	names := driver.Names(func(c driver.Caps) bool { return c.Outlives && !c.Engines })
	if len(names) == 0 {
		return ""
	}
	return names[0]
}
