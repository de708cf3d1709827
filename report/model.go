// Package report turns an artifacts folder into reports, knowing nothing of
// how the run was produced: Load reads summary.json (or scenario.yml) and
// payments.jsonl, Summarize recomputes the cases, and WriteAll renders the
// one summary model into every format (GitHub markdown, CSV, JSON, Go
// benchfmt, R plots, HTML) plus the flame graph timeline of profiled runs.
// The soak report and the comparison of two runs read the same folders.
package report

import (
	"time"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/cost"
	"github.com/lnbench/lnbench/costcurve"
	"github.com/lnbench/lnbench/envinfo"
	"github.com/lnbench/lnbench/recovery"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage"
)

// Report is the single model all exporters render.
type Report struct {
	RunID    string            `json:"run_id"`
	Started  time.Time         `json:"started"`
	Finished time.Time         `json:"finished"`
	Scenario scenario.Scenario `json:"scenario"`
	Backend  string            `json:"backend"`
	Env      envinfo.Env       `json:"environment"`
	// Nodes lists one NodeInfo per node spec: the compared specs first,
	// then any a topology node pins (mixed networks).
	Nodes []NodeInfo `json:"nodes"`
	Setup []Setup    `json:"setup"`
	// Costs are what each network cost this machine at ready (memory, CPU);
	// CostCurves are derived from them, one per node spec whose networks
	// differ in size.
	Costs      []NetworkCost     `json:"network_costs,omitempty"`
	CostCurves []costcurve.Curve `json:"cost_curves,omitempty"`
	// Forwards counts the HTLCs each node forwarded, per network: proof that
	// multi-hop payments really crossed the intermediaries.
	Forwards []Forward `json:"forwards,omitempty"`
	// Placement says which engine ran each service (swarm backend).
	Placement []Placement `json:"placement,omitempty"`
	Cases     []Row       `json:"cases"`
	// Design is how a comparison of specs ordered its launches; nil for a
	// run of one spec and for runs written before it was recorded.
	Design *Design `json:"design,omitempty"`
	// Routes counts hops and failure reasons of the measured payments.
	Routes *analysis.Routes `json:"routes,omitempty"`
	// Warnings are what the run recorded (notes, an early end, skipped
	// sweep steps): written once, kept as they are by later reports.
	Warnings []string `json:"warnings,omitempty"`
	// AnalysisWarnings are derived from the raw payments and recomputed by
	// every Summarize, so they never accumulate.
	AnalysisWarnings []string `json:"analysis_warnings,omitempty"`
	// HarnessCPUSeconds is the harness process's own CPU time during the run.
	HarnessCPUSeconds float64 `json:"harness_cpu_seconds"`
	WallSeconds       float64 `json:"wall_seconds"`
	// HarnessProfile names the harness's own CPU profile in the folder
	// (lnbench run --harness-profile); empty when none was taken.
	HarnessProfile string `json:"harness_profile,omitempty"`
	// DiskProbes are the sync ceilings measured where node data dirs live,
	// one per storage kind the run used.
	DiskProbes []usage.DiskProbe `json:"disk_probes,omitempty"`
	// Resources is each case's per-actor cost and bottleneck verdict,
	// recomputed from resources.jsonl by LoadResources.
	Resources []cost.Case `json:"resources,omitempty"`
	// SamplingOverhead compares cases run with ResourceSampling on and off.
	SamplingOverhead []SamplingOverhead `json:"sampling_overhead,omitempty"`
	// Faults are the faults injected during the run with their recovery
	// figures, recomputed from faults.jsonl by LoadFaults.
	Faults []recovery.Fault `json:"faults,omitempty"`
}

// Placement is the engine (swarm node) that ran one service of a network.
type Placement struct {
	Network string `json:"network"`
	Service string `json:"service"`
	Engine  string `json:"engine"`
}

// NodeInfo describes one node spec of the run: its build, config profile
// and the flags its nodes ran with.
type NodeInfo struct {
	Label          string   `json:"label,omitempty"` // the spec's name in the Node column
	Baseline       bool     `json:"baseline,omitempty"`
	Implementation string   `json:"implementation"`
	Version        string   `json:"version"`
	Build          string   `json:"build,omitempty"`  // lnd@v0.21.0-beta or lnd@src:/abs/path
	Key            string   `json:"key,omitempty"`    // build key
	Source         string   `json:"source,omitempty"` // source tree path
	Commit         string   `json:"commit,omitempty"` // git commit of the source tree
	Dirty          bool     `json:"dirty,omitempty"`  // uncommitted edits in the source tree
	GoVersion      string   `json:"go_version,omitempty"`
	Tags           []string `json:"tags,omitempty"`
	PGOHash        string   `json:"pgo_hash,omitempty"`
	// C builds (CLN): the version string the node reports, the compiler
	// and the build options (opt, march, fp, configure).
	NodeVersion  string   `json:"node_version,omitempty"`
	Compiler     string   `json:"compiler,omitempty"`
	BuildOptions string   `json:"build_options,omitempty"`
	Profile      string   `json:"profile,omitempty"` // config profile, e.g. tuned+bbolt
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

// Row is one case: its params and its statistics.
type Row struct {
	Method string           `json:"method"`
	Params []scenario.Value `json:"params"`
	// Node is the label of the node spec the case ran: BenchmarkDotNet's
	// Job column. Several specs put it first in Params too (Node=label).
	Node string `json:"node"`
	// Ratio compares the case with the same params on the baseline spec;
	// nil when the run has no baseline or the baseline case is missing.
	Ratio *Ratio `json:"vs_baseline,omitempty"`
	analysis.Case
}

// HarnessCPUShare is the harness's CPU time as a share of one core over the wall time.
func (r Report) HarnessCPUShare() float64 {
	if r.WallSeconds == 0 {
		return 0
	}
	return r.HarnessCPUSeconds / r.WallSeconds
}
