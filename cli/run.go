package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/backend/driver"
	"github.com/lnbench/lnbench/buildset"
	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/runner"
	"github.com/lnbench/lnbench/sampler"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage/guard"
)

// DefaultScenarioFile is what `lnbench run` reads without an argument, so a
// git branch per scenario works by editing this one file.
const DefaultScenarioFile = "bench/scenario.yml"

type runFlags struct {
	params       []string
	jobs         []string // --job Name=value: job settings over the file's
	quick        bool
	plan         bool // print the plan and stop: nothing built or started
	backend      string
	artifacts    string
	cache        string
	images       string
	reuse        bool
	startTimeout time.Duration
	build        bool
	history      string
	cpus         float64
	memory       string
	nodes        []string
	baseline     string
	yes          bool
	swarmEngines string
	faults       []string
	compare      compareFlags
	// harnessProfile: the harness's own CPU profile into the artifacts.
	harnessProfile bool
	// snapshots: restore networks from snapshots (made once in the cache),
	// kept in snapshotDir ("" is CACHE/snapshots).
	snapshots   bool
	snapshotDir string
	// snapshotsFor restores only these node specs' networks (implies snapshots).
	snapshotsFor []string
	// fresh: --fresh-network, builds every network; freshSet: given at all.
	fresh, freshSet bool
	plots           plotsFlag
}

// wantsSnapshots: --snapshots, or --snapshots-for (which implies it).
func (f runFlags) wantsSnapshots() bool { return f.snapshots || len(f.snapshotsFor) > 0 }

func runCmd(stdout, stderr io.Writer) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [scenario.yml]",
		Short: "Run a benchmark scenario and write its artifacts folder",
		Long: "Run a benchmark scenario (default " + DefaultScenarioFile + ", else the built-in AlicePaysBob)\n" +
			"against real nodes and write raw payments, summaries and logs to\n" +
			"<artifacts>/<UTC timestamp>-<scenario>/.\n\n" + nodeSpecHelp,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.noteFreshSet(cmd)
			f.plots.set = cmd.Flags().Changed("plots")
			return runScenario(cmd, stdout, stderr, args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.params, "param", nil, "override a param: Name=v1,v2 (repeatable)")
	fl.StringArrayVar(&f.jobs, "job", nil, "override a job setting: Name=value, one of "+strings.Join(scenario.JobSettings, ", ")+" (repeatable; after --quick)")
	fl.BoolVar(&f.quick, "quick", false, "smoke run: 1 warm-up + 3 iterations per case on one reused network")
	addBackendFlag(fl, &f)
	addYesFlag(fl, &f)
	fl.BoolVar(&f.plan, "plan", false, "print the run's plan (cases, launches, networks, design, estimated time, what a comparison can detect) and stop: nothing is built or started")
	fl.BoolVar(&f.reuse, "reuse-network", false, "run cases that share a topology on one network instead of a fresh one each")
	fl.BoolVar(&f.build, "build", true, "build missing node binaries (always: every spec the scenario needs is built)")
	_ = fl.MarkHidden("build")
	addNetworkFlags(fl, &f)
	fl.StringVar(&f.history, "history", "", "append one row per case to DIR/history.csv, to follow a series of runs")
	fl.Float64Var(&f.cpus, "cpus", 0, "compose: CPU limit per node container, not btcd's or the sampler's (e.g. 1.5; 0 = none)")
	fl.StringVar(&f.memory, "memory", "", "compose: memory limit per node container, not btcd's or the sampler's (e.g. 512m; ≥ 320m for LND, its start peak; empty = none)")
	addCompareFlags(fl, &f.compare)
	fl.BoolVar(&f.harnessProfile, "harness-profile", false, "write lnbench's own CPU profile for the run into the artifacts folder ("+runner.HarnessProfileName+", top functions in "+runner.HarnessProfileTopName+")")
	addSnapshotFlags(fl, &f)
	fl.StringArrayVar(&f.snapshotsFor, "snapshots-for", nil, "restore only this node spec's networks (label; repeatable) and build the others: a built and a restored network in one comparison show what restoring changes")
	addPlotsFlag(fl, &f.plots)
	fl.StringArrayVar(&f.faults, "fault", nil, "inject a fault during measurement, added to the scenario's (repeatable), e.g. \"restart bob at 10s\", \"pause bob at 5s for 5s\"")
	return cmd
}

// validate checks the flags no scenario rule covers, before a build or an
// engine probe can take minutes.
func (f runFlags) validate() error {
	if f.startTimeout <= 0 {
		return fmt.Errorf("--start-timeout %v: use a positive duration, e.g. 90s", f.startTimeout)
	}
	if _, ok := driver.Lookup(f.backend); !ok && f.backend != "" && f.backend != "auto" { // "" where the command has no --backend
		return fmt.Errorf("--backend %q: use auto, %s", f.backend, backendNames())
	}
	return nil
}

// checkScenario refuses, before anything starts, what would fail later: a
// rule of the scenario, a case's topology, a limit this machine cannot give.
func checkScenario(s scenario.Scenario) error {
	if err := s.Validate(); err != nil {
		return err
	}
	// The guard first: a network too large for this machine is refused
	// before its graph is generated.
	if err := guard.Memory(s); err != nil {
		return err
	}
	if err := s.CheckTopologies(); err != nil {
		return err
	}
	return s.CheckHost(runtime.NumCPU())
}

func loadScenario(args []string, f runFlags) (scenario.Scenario, error) {
	var s scenario.Scenario
	if err := f.validate(); err != nil {
		return s, err
	}
	var err error
	switch {
	case len(args) == 1:
		s, err = scenario.Load(args[0])
	default:
		if _, statErr := os.Stat(DefaultScenarioFile); statErr == nil {
			s, err = scenario.Load(DefaultScenarioFile)
		} else {
			s = scenario.Default()
		}
	}
	if err != nil {
		return s, err
	}
	s, err = loadOverrides(s, f)
	if err != nil {
		return s, err
	}
	if err := f.compare.apply(&s); err != nil {
		return s, err
	}
	s.ApplyCompareDefaults()
	if f.quick {
		s.Job = scenario.Job{LaunchCount: 1, WarmupCount: 1, IterationCount: 3, InvocationCount: 1}
		s.ReuseNetwork = true
	}
	for _, text := range f.jobs {
		if s.Job, err = s.Job.Override(text); err != nil {
			return s, err
		}
	}
	if f.reuse {
		s.ReuseNetwork = true
	}
	if f.freshSet {
		s.FreshNetwork = f.fresh
	} else if f.wantsSnapshots() {
		s.FreshNetwork = false // the flag over the file's key
	}
	if f.cpus != 0 {
		s.Node.CPUs = f.cpus
	}
	if f.memory != "" {
		s.Node.Memory = f.memory
	}
	for _, text := range f.faults {
		spec, err := faults.Parse(text)
		if err != nil {
			return s, fmt.Errorf("--fault: %v", err)
		}
		s.Faults = append(s.Faults, spec)
	}
	if err := checkScenario(s); err != nil {
		return s, err
	}
	_, err = guard.FitDesign(&s) // executeScenario prints a fallback
	return s, err
}

func runScenario(cmd *cobra.Command, stdout, stderr io.Writer, args []string, f runFlags) error {
	s, err := loadScenario(args, f)
	if err != nil {
		return err
	}
	_, err = executeScenario(cmd, stdout, stderr, s, f, nil)
	return err
}

// executeScenario builds what the scenario needs, runs it and prints the
// table; tweak may adjust the runner options (soak sets a deadline).
func executeScenario(cmd *cobra.Command, stdout, stderr io.Writer, s scenario.Scenario, f runFlags, tweak func(*runner.Options)) (runner.Run, error) {
	ctx := cmd.Context()
	// Refusals first: nothing is built or started for a run that will not go.
	// The estimate that asks before a long run takes the backend asked for
	// (auto is estimated as compose, the slower); once the backend is
	// chosen, its own.
	networks, est, _, err := runner.Estimate(s, askedOverhead(f.backend))
	if err != nil {
		return runner.Run{}, err
	}
	if err := runner.CheckRoutes(s, nil); err != nil {
		return runner.Run{}, err
	}
	if !f.plan {
		if err := confirmLong(est, f.yes, cmd.InOrStdin(), stderr); err != nil {
			return runner.Run{}, err
		}
	}
	if s.Compare.Fallback != "" {
		fmt.Fprintln(stderr, "design: "+s.Compare.Fallback)
	}
	be, note, err := chooseBackend(f.backend)
	if err != nil {
		return runner.Run{}, err
	}
	kind, backendName := be.Caps(), be.Name()
	_, est, warn, err := runner.Estimate(s, kind.Overhead)
	if err != nil {
		return runner.Run{}, err
	}
	if note != "" {
		fmt.Fprintln(stderr, note)
	}
	if !kind.Limits {
		if err := refuseLimits(s, backendName); err != nil {
			return runner.Run{}, err
		}
	}
	if err := refuseFaults(s, be); err != nil {
		return runner.Run{}, err
	}
	if err := refuseCPUSets(s, kind); err != nil {
		return runner.Run{}, err
	}
	if note, err := fitFreeze(&s, be); err != nil {
		return runner.Run{}, err
	} else if note != "" {
		fmt.Fprintln(stderr, "design: "+note)
	}
	if err := refuseCLNBackend(s, be); err != nil {
		return runner.Run{}, err
	}
	if err := checkSnapshotsFor(s, f.snapshotsFor); err != nil {
		return runner.Run{}, err
	}
	restore, snapNote, err := restoresNetworks(s, f, be)
	if err != nil {
		return runner.Run{}, err
	}
	if snapNote != "" {
		fmt.Fprintln(stderr, snapNote)
	}
	withPostgres, err := refuseDatabases(s, be)
	if err != nil {
		return runner.Run{}, err
	}
	if f.plan {
		if restore {
			// The snapshots' keys name the builds: those the cache holds
			// give the restored estimate without building anything.
			if est, warn, err = plannedRestores(ctx, s, f, be, networks, est, warn); err != nil {
				return runner.Run{}, err
			}
		}
		printPlan(stderr, s, networks, est, warn, backendName)
		fmt.Fprintln(stderr, "plan only (--plan): nothing built or started")
		return runner.Run{}, nil
	}
	if withPostgres {
		if err := nodebuild.EnsurePackages(ctx, stderr, postgresPackages); err != nil {
			return runner.Run{}, err
		}
	}
	images, err := findImages(f.images)
	if err != nil {
		return runner.Run{}, err
	}
	// The backend readies the run before any build (a swarm checks its
	// engines): a refusal leaves nothing built or started.
	tool, toolErr := staticSelf()
	site, err := be.Open(ctx, driver.Options{EnginesFile: f.swarmEngines, Tool: tool, ToolErr: toolErr, Log: stderr})
	if err != nil {
		return runner.Run{}, err
	}
	// Every build the scenario needs (each distinct one once) before
	// anything else: a failed build leaves no run behind.
	bins, err := buildset.Ensure(ctx, images, f.cache, &s, stderr)
	if err != nil {
		return runner.Run{}, err
	}
	var snaps *runner.SnapshotOptions
	if restore {
		snaps = snapshotOptions(f, bins)
		if est, warn, err = restoredEstimate(s, bins, snaps, be, networks, warn); err != nil {
			return runner.Run{}, err
		}
	}
	printPlan(stderr, s, networks, est, warn, backendName)
	// Images are built once per run, before its folder exists: a failed
	// build leaves no empty run behind.
	if kind.Images {
		if err := bins.EnsureImages(ctx, images, stderr); err != nil {
			return runner.Run{}, err
		}
	}
	if err := site.Stage(ctx, driver.Stage{Builds: bins.ForBackend(), Profiling: s.Sampling.On(), Faults: s.Faults}); err != nil {
		return runner.Run{}, err
	}
	run, err := runner.NewRun(f.artifacts, s.Name)
	if err != nil {
		return run, err
	}
	fmt.Fprintf(stderr, "artifacts: %s\n", run.Dir)
	newBackend := func(n runner.NetworkSpec) (backend.Backend, error) {
		return site.Network(ctx, networkOf(n, s, networks > 1, f.startTimeout))
	}
	newSampler := func(_ runner.NetworkSpec, _ *network.Network, b backend.Backend, cfg sampler.Config) (sampler.Controller, error) {
		return site.Sampler(ctx, b, cfg)
	}
	var notes []string
	if note != "" {
		notes = append(notes, note)
	}
	opts := runner.Options{Scenario: s, ArtifactsRoot: f.artifacts, BackendName: backendName,
		NewBackend: newBackend, NewSampler: newSampler, Log: stderr, Notes: notes, Builds: bins.ForReport(),
		DiskProbe: 3 * time.Second, HarnessProfile: f.harnessProfile, UnknownVerdicts: report.UnknownVerdicts, NoCPUSets: kind.NoCPUSets}
	opts.Snapshots = snaps
	if tweak != nil {
		tweak(&opts)
	}
	_, err = runner.Execute(ctx, opts, run)
	rep, rerr := renderRun(run.Dir, stderr, f.plots.options())
	if rerr != nil && err == nil {
		err = rerr
	}
	if f.history != "" && len(rep.Cases) > 0 {
		if herr := report.AppendHistory(f.history, rep); herr != nil {
			fmt.Fprintf(stderr, "history: %v\n", herr)
		}
	}
	if len(rep.Cases) > 0 {
		fmt.Fprintln(stdout)
		_ = report.Text(stdout, rep)
		fmt.Fprintln(stdout)
	}
	abs, _ := filepath.Abs(run.Dir)
	fmt.Fprintf(stdout, "artifacts: %s\n", abs)
	if err != nil {
		if errors.Is(err, ctx.Err()) && ctx.Err() != nil {
			return run, fmt.Errorf("interrupted; every process was stopped and what was measured is in %s: %w", abs, context.Canceled)
		}
		return run, err
	}
	return run, nil
}

// renderRun writes the reports of a run the runner has left: once it has
// written its manifest, also after a failure part way, so what was measured
// is reported either way. A run that failed before it had a manifest (a bad
// scenario, a work folder in use) has nothing to report.
func renderRun(dir string, log io.Writer, opts report.RenderOptions) (report.Report, error) {
	if _, err := os.Stat(filepath.Join(dir, record.ManifestFile)); err != nil {
		return report.Report{}, nil
	}
	return report.RenderWith(dir, log, opts)
}

// refuseLimits refuses container limits on a backend that sets none (local
// processes): the scenario's node.cpus/node.memory and any topology node's own.
func refuseLimits(s scenario.Scenario, backendName string) error {
	fix := driver.UseOneOf(func(c driver.Caps) bool { return c.Limits && !c.Engines })
	if s.Node.CPUs > 0 || s.Node.Memory != "" {
		return fmt.Errorf("node.cpus/node.memory (--cpus/--memory) limit containers: %s, or drop the limits on the %s backend", fix, backendName)
	}
	for _, c := range s.Cases() {
		if topo, err := s.CaseTopology(c); err == nil && topo.HasLimits() {
			return fmt.Errorf("topology %s: nodes' cpus/memory limit containers: %s, or drop them on the %s backend", topo.Name, fix, backendName)
		}
	}
	return nil
}

// refuseCPUSets refuses a duet split over CPU sets on a backend that pins none.
func refuseCPUSets(s scenario.Scenario, kind driver.Caps) error {
	if kind.NoCPUSets != "" && s.Compare.CPUs == scenario.CPUsSplit {
		return fmt.Errorf("compare.cpus split (--duet-cpus): %s and pins no CPU set; %s, or drop it", kind.NoCPUSets, driver.UseOneOf(func(c driver.Caps) bool { return c.NoCPUSets == "" }))
	}
	return nil
}

// fitFreeze leaves the waiting networks running on a backend that cannot
// pause a process (swarm) when the freeze is the default, and refuses it
// when the scenario or --freeze-idle asked for it.
func fitFreeze(s *scenario.Scenario, be driver.Driver) (string, error) {
	if !s.Freezes() || be.Caps().Faults {
		return "", nil
	}
	if s.Compare.FreezeIdle != nil {
		return "", fmt.Errorf("compare.freeze_idle (--freeze-idle): the %s backend cannot pause a network's processes; %s, or --freeze-idle=false", be.Name(), driver.UseOneOf(pauses))
	}
	off := false
	s.Compare.FreezeIdle = &off
	return fmt.Sprintf("the waiting networks keep running: the %s backend cannot pause a network's processes", be.Name()), nil
}

// refuseFaults refuses faults the backend cannot inject: impairments need
// a container's own interface (compose), and swarm injects none.
func refuseFaults(s scenario.Scenario, be driver.Driver) error {
	for _, f := range s.Faults {
		switch {
		case !be.Caps().Faults:
			return fmt.Errorf("fault %q: the %s backend injects no faults; %s", f, be.Name(), driver.UseOneOf(pauses))
		case !be.Caps().Impairments && f.Impairs():
			return backend.ErrNoImpairments{Fault: fmt.Sprintf("fault %q", f), Fix: driver.UseOneOf(impairs)}
		}
	}
	return nil
}

// pauses and impairs select backends by what they can do to a node.
func pauses(c driver.Caps) bool  { return c.Faults }
func impairs(c driver.Caps) bool { return c.Impairments }

// printPlan is the run's plan line: what runs, how often, where, for how
// long, and what a comparison's launch count can detect.
func printPlan(stderr io.Writer, s scenario.Scenario, networks int, est time.Duration, warn, backendName string) {
	fmt.Fprintf(stderr, "%s: %d case(s) × %d launch(es) on %d network(s), %s each, backend %s, estimated ~%v\n",
		s.Name, len(s.Cases()), s.Job.LaunchCount, networks, s.Job.Describe(), backendName, est.Round(10*time.Second))
	if why := launchesWhy(s); why != "" {
		fmt.Fprintln(stderr, why)
	}
	if warn != "" {
		fmt.Fprintln(stderr, warn)
	}
}
