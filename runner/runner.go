// Package runner executes a scenario end to end: for each network a fresh
// backend, setup, warm-up and measured iterations streamed to disk, logs,
// teardown, then the run's manifest (package record) into the artifacts
// folder. Analysis and reports are the caller's (report.Render): the runner
// leaves the record they are made from.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/internal/envinfo"
	"github.com/lnbench/lnbench/internal/lines"
	"github.com/lnbench/lnbench/internal/progress"
	"github.com/lnbench/lnbench/internal/runid"
	"github.com/lnbench/lnbench/internal/runs"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/node/drivers"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/sweep"
	"github.com/lnbench/lnbench/topology"
)

// NetworkSpec is what a backend needs to know about one network of a run.
type NetworkSpec struct {
	RunID        string
	Name         string // network name within the run, e.g. "launch1/CarolsCount=2"
	WorkDir      string // node data dirs (keys, macaroons); removed at the end
	ArtifactsDir string // the run's artifacts folder (compose writes its file here)
	Topology     topology.Topology
	// Profiling asks the backend to open each node's pprof endpoint.
	Profiling bool
	// Origin is the run's start; profile windows are named by time since it.
	Origin time.Time
	// NodeConfigs are how each node spec's nodes start, by spec label.
	NodeConfigs map[string]backend.NodeConfig
	// CPUs is the CPU set every actor of the network runs on (a duet round
	// that splits the cores); nil: every core.
	CPUs []int
}

// BackendFactory makes the backend for one network of the run.
type BackendFactory func(NetworkSpec) (backend.Backend, error)

// Options configure a run.
type Options struct {
	Scenario      scenario.Scenario
	ArtifactsRoot string // e.g. BenchmarkArtifacts
	WorkRoot      string // node data dirs; default runs.Root() ($TMPDIR/lnbench)
	BackendName   string
	NewBackend    BackendFactory
	// Drivers dial the nodes by implementation; nil means the shipped ones.
	Drivers node.Drivers
	// StartChain starts each network's chain; nil means btcd.
	StartChain network.ChainStarter
	Log        io.Writer // free-form log lines (setup, errors)
	Progress   progress.Reporter
	// NewSampler starts the profiler of one network; nil samples in-process
	// from each node's PprofHost (local backend).
	NewSampler SamplerFactory
	// Notes go into the manifest's warnings (e.g. why compose fell back to local).
	Notes []string
	// Snapshot samples a network's actors once it is ready (the cost
	// curve's memory and CPU); nil means the backend's actors read by
	// package usage/collect.
	Snapshot Snapshotter
	// Builds are the ensured builds of the node specs, by label, for the
	// manifest's node specs (the report's environment block).
	Builds map[string]NodeBuild

	// DiskProbe is how long the disk sync probe runs, once per storage
	// kind the run uses; 0 skips it.
	DiskProbe time.Duration

	// HarnessProfile writes this process's own CPU profile for the run
	// into its artifacts folder (HarnessProfileName), named in the manifest.
	HarnessProfile bool

	// UnknownVerdicts is asked between blocks of launches of a run that
	// goes on until every verdict is known (scenario compare.until_known);
	// such a run fails at once without it.
	UnknownVerdicts VerdictCounter
	// Snapshots restores each network from a snapshot of the same facts,
	// made first when the cache has none; nil builds every network.
	Snapshots *SnapshotOptions
	// NoCPUSets says why the backend cannot pin a network to a CPU set
	// (swarm places networks on engines); "" when it can.
	NoCPUSets string

	// watchTicks paces each network's death watch; nil means watchEvery
	// (or the backend's own pace).
	watchTicks <-chan time.Time
}

// Run is one execution of a scenario.
type Run struct {
	ID  string
	Dir string
}

// NewRun names the run and creates its artifacts folder under root, with an
// id reserved machine-wide (see package runid).
func NewRun(root, scenarioName string) (Run, error) {
	return NewRunIn(runid.Default(), root, scenarioName)
}

// NewRunIn is NewRun with the reservations given.
func NewRunIn(ids runid.Reservations, root, scenarioName string) (Run, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return Run{}, fmt.Errorf("artifacts folder: %v", err)
	}
	id, err := ids.Reserve(scenarioName, func(id string) error {
		err := os.Mkdir(filepath.Join(root, id), 0o755)
		if err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("artifacts folder: %v", err)
		}
		return err // an existing folder: runid tries the next id
	})
	if err != nil {
		return Run{}, err
	}
	return Run{ID: id, Dir: filepath.Join(root, id)}, nil
}

type caseRun struct {
	c      scenario.Case
	launch int
	topo   topology.Topology
}

// networkPlan groups cases by the network they run on.
type networkPlan struct {
	name  string
	topo  topology.Topology
	cases []caseRun
	// pair names the launch round and the network without its node spec:
	// the interleaved and duet designs bring up a pair's networks together.
	pair string
	// cpus is the network's CPU set in a duet round that splits the cores;
	// nil: every core.
	cpus []int
}

func plan(s scenario.Scenario) ([]networkPlan, error) { return planRounds(s, 0, s.Job.LaunchCount) }

// planRounds plans launch rounds from to to (0-based, to excluded). Within
// a round the specs take turns in launchRounds' order, case by case, so a
// case's launches of the compared specs run next to each other in time.
func planRounds(s scenario.Scenario, from, to int) ([]networkPlan, error) {
	var plans []networkPlan
	index := map[string]int{}
	bySpec := map[string][]scenario.Case{}
	for _, c := range s.Cases() {
		bySpec[c.Node] = append(bySpec[c.Node], c)
	}
	labels := specLabels(s)
	perSpec := len(bySpec[labels[0]])
	for ri, round := range launchRounds(labels, s.Compare.OrderOrDefault(), s.Compare.Seed, from, to) {
		launch := from + ri
		for i := 0; i < perSpec; i++ {
			for _, label := range round {
				c := bySpec[label][i]
				topo, err := s.CaseTopology(c)
				if err != nil {
					return nil, err
				}
				key := fmt.Sprintf("launch%d", launch+1)
				if k := c.NetworkKey(); k != "" {
					key += "/" + k
				}
				pair := fmt.Sprintf("launch%d/%s", launch+1, c.PairKey())
				if !s.ReuseNetwork {
					key = fmt.Sprintf("launch%d/%s", launch+1, c.ID())
					pair = fmt.Sprintf("launch%d/%d", launch+1, i)
				}
				ni, ok := index[key]
				if !ok {
					ni = len(plans)
					index[key] = ni
					plans = append(plans, networkPlan{name: key, topo: topo, pair: pair})
				}
				plans[ni].cases = append(plans[ni].cases, caseRun{c: c, launch: launch, topo: topo})
			}
		}
	}
	return plans, nil
}

// Execute runs the scenario. It always leaves the artifacts folder with
// what was measured and the run's manifest, even when it returns an error
// or ctx is cancelled, so the caller renders the reports in either case.
func Execute(ctx context.Context, opts Options, run Run) (rec record.Manifest, err error) {
	if opts.Scenario.Compare.OrderOrDefault() == scenario.OrderShuffled && opts.Scenario.Compare.Seed == 0 {
		opts.Scenario.Compare.Seed = newSeed() // recorded in scenario.yml and run.json: the order can be rerun
	}
	s := opts.Scenario
	plans, err := plan(s)
	if err != nil {
		return rec, err
	}
	design := designOf(s, plans, opts.NoCPUSets)
	if design != nil && design.UntilKnown && opts.UnknownVerdicts == nil {
		return rec, errNoVerdictCounter
	}
	if opts.Drivers == nil {
		opts.Drivers = drivers.Builtin()
	}
	configs, nodes, err := NodeSetup(opts.Drivers, s, opts.Builds)
	if err != nil {
		return rec, err
	}
	if err := writeScenario(run.Dir, s); err != nil {
		return rec, err
	}
	if opts.Progress == nil {
		opts.Progress = progress.New(opts.Log)
	}
	opts.Log = opts.Progress
	if opts.WorkRoot == "" {
		opts.WorkRoot = runs.Root()
	}
	// The work folder names this process as its harness: `lnbench ps` and
	// `down` tell a live run from a killed one by it.
	if err := runs.Claim(filepath.Join(opts.WorkRoot, run.ID)); err != nil {
		return rec, err
	}
	// So does its tmpfs folder, which a killed run leaves with keys in RAM.
	tmpfsDir := ""
	if usesTmpfs(plans) {
		tmpfsDir = filepath.Join(runs.TmpfsRoot, run.ID)
		if err := runs.Claim(tmpfsDir); err != nil {
			return rec, err
		}
	}
	rec = record.Manifest{RunID: run.ID, Started: time.Now().UTC(), Scenario: s, Backend: opts.BackendName, Env: envinfo.Collect(),
		Warnings: append(append([]string(nil), opts.Notes...), topologyNotes(plans)...)}
	rec.Nodes = withTopologyNodes(nodes, plans)
	rec.Design = design
	w, err := result.Create(filepath.Join(run.Dir, record.PaymentsFile))
	if err != nil {
		return rec, err
	}
	// Flushed after every batch (runCase): nothing reads it mid-batch.
	w.Buffer()
	if design != nil && design.UntilKnown {
		w.Keep() // until-known's looks count verdicts from the stream in memory
	}
	var fw *faults.Writer
	if len(s.Faults) > 0 {
		if fw, err = faults.Create(filepath.Join(run.Dir, record.FaultsFile)); err != nil {
			return rec, err
		}
		defer fw.Close()
	}
	var stopProfile func() (string, error)
	if opts.HarnessProfile {
		if stopProfile, err = startHarnessProfile(run.Dir); err != nil {
			return rec, err
		}
	}
	cpu0 := cpuSeconds()
	defer func() {
		os.RemoveAll(filepath.Join(opts.WorkRoot, run.ID))
		if tmpfsDir != "" {
			os.RemoveAll(tmpfsDir)
		}
		w.Close()
		// Stopped before the manifest, which names it.
		if stopProfile != nil {
			note, perr := stopProfile()
			if perr != nil {
				rec.Warnings = append(rec.Warnings, perr.Error())
			}
			rec.HarnessProfile = note
		}
		rec.Finished = time.Now().UTC()
		rec.WallSeconds = rec.Finished.Sub(rec.Started).Seconds()
		rec.HarnessCPUSeconds = cpuSeconds() - cpu0
		if err != nil {
			rec.Warnings = append(rec.Warnings, "run ended early: "+lines.First(err.Error()))
		}
		if werr := record.Write(run.Dir, rec); werr != nil && err == nil {
			err = fmt.Errorf("writing the run's manifest: %v", werr)
		}
	}()

	iterations := 0
	for _, p := range plans {
		iterations += len(p.cases) * (s.Job.WarmupCount + s.Job.IterationCount)
	}
	if s.Job.Timed() {
		iterations = -1 // measured for a time, not a count: the bar is a spinner
	}
	opts.Progress.Plan(iterations)
	defer opts.Progress.Done()
	e := &execution{opts: opts, run: run, w: w, fw: fw, rec: &rec, sw: sweep.New(s.Sweep), configs: configs}
	if err := e.runPlans(ctx, plans); err != nil {
		return rec, err
	}
	return rec, e.untilKnown(ctx)
}

// execution is one run's stages: what every network of it shares (its
// options and folder, the streams it writes, its record, its sweep and
// node configs); its methods run plans, launch pairs and networks.
type execution struct {
	opts    Options
	run     Run
	w       *result.Writer
	fw      *faults.Writer
	rec     *record.Manifest
	sw      *sweep.Sweep
	configs map[string]backend.NodeConfig
}

// runPlans runs networks one after the other, or a launch round's
// networks together in the interleaved and duet designs.
func (e *execution) runPlans(ctx context.Context, plans []networkPlan) error {
	opts, rec, sw := e.opts, e.rec, e.sw
	if paired(opts.Scenario) {
		return e.runPairs(ctx, plans)
	}
	logf := func(format string, a ...any) { fmt.Fprintf(opts.Log, format+"\n", a...) }
	for ni, p := range plans {
		if err := ctx.Err(); err != nil {
			return err
		}
		var cases []caseRun
		for _, c := range p.cases {
			if skipSwept(sw, rec, c) {
				continue
			}
			cases = append(cases, c)
		}
		if len(cases) == 0 {
			continue
		}
		p.cases = cases
		logf("network %d/%d (%s): %s", ni+1, len(plans), p.name, p.topo)
		if err := e.runNetwork(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// skipSwept tells whether an earlier sweep step of the case's group broke a
// bound, and records the skip in the manifest's warnings.
func skipSwept(sw *sweep.Sweep, rec *record.Manifest, c caseRun) bool {
	if !sw.Skip(c.c.Values) {
		return false
	}
	rec.Warnings = append(rec.Warnings, fmt.Sprintf("sweep: %s skipped: an earlier step broke the bound", c.c.ID()))
	return true
}

func sanitize(s string) string { return strings.NewReplacer("/", "_", "=", "-").Replace(s) }

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// caseIndex is the 1-based position of the case among the run's cases.
func caseIndex(rec *record.Manifest, c caseRun) int {
	for i, sc := range rec.Scenario.Cases() {
		if sc.ID() == c.c.ID() {
			return c.launch*len(rec.Scenario.Cases()) + i + 1
		}
	}
	return 0
}

func countCases(s scenario.Scenario) int { return len(s.Cases()) * s.Job.LaunchCount }

// placements lists a network's services with their engines, sorted.
func placements(network string, m map[string]string) []record.Placement {
	var out []record.Placement
	for svc, e := range m {
		out = append(out, record.Placement{Network: network, Service: svc, Engine: e})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Service < out[j].Service })
	return out
}

// forwards reads every intermediary's forwarding count.
func forwards(ctx context.Context, name string, net *network.Network) []record.Forward {
	var out []record.Forward
	for _, n := range net.Names() {
		// With random pairs every node may forward, endpoints included.
		if len(net.Topology.Pairs) == 0 && net.Topology.Endpoint(n) {
			continue
		}
		// A node that cannot answer (its engine lost) costs at most this.
		nctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		c, err := net.Nodes[n].ForwardedCount(nctx)
		cancel()
		if err == nil {
			out = append(out, record.Forward{Network: name, Node: n, Count: c})
		}
	}
	return out
}
