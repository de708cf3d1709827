// Package report turns an artifacts folder into reports, knowing nothing of
// how the run was produced: Load reads the run's manifest (run.json; older
// folders: summary.json, else scenario.yml) and the streams, Summarize
// recomputes the cases from payments.jsonl, and WriteAll renders the
// one summary model into every format (GitHub markdown, CSV, JSON, Go
// benchfmt, R plots, HTML) plus the flame graph timeline of profiled runs.
// The soak report and the comparison of two runs read the same folders.
package report

import (
	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/recovery"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage/cost"
	"github.com/lnbench/lnbench/usage/costcurve"
)

// Report is the single model all exporters render: the run's manifest
// and what Summarize, LoadResources and LoadFaults derive from the streams.
// The manifest is embedded, so summary.json carries its fields at the top
// level as it did before the manifest had a file of its own.
type Report struct {
	record.Manifest
	// CostCurves are derived from the manifest's Costs, one per node spec
	// whose networks differ in size.
	CostCurves []costcurve.Curve `json:"cost_curves,omitempty"`
	Cases      []Row             `json:"cases"`
	// Routes counts hops and failure reasons of the measured payments.
	Routes *analysis.Routes `json:"routes,omitempty"`
	// AnalysisWarnings are derived from the raw payments and recomputed by
	// every Summarize, so they never accumulate.
	AnalysisWarnings []string `json:"analysis_warnings,omitempty"`
	// Resources is each case's per-actor cost and bottleneck verdict,
	// recomputed from resources.jsonl by LoadResources.
	Resources []cost.Case `json:"resources,omitempty"`
	// SamplingOverhead compares cases run with ResourceSampling on and off.
	SamplingOverhead []SamplingOverhead `json:"sampling_overhead,omitempty"`
	// Faults are the faults injected during the run with their recovery
	// figures, recomputed from faults.jsonl by LoadFaults.
	Faults []recovery.Fault `json:"faults,omitempty"`
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
	// CostVerdicts compare each node's (and the chain's) CPU ms and syncs
	// per payment with the same actor of the baseline case, launches as
	// the unit (costverdict.go); nil without a baseline or resource samples.
	CostVerdicts []CostVerdict `json:"cost_verdicts,omitempty"`
	analysis.Case
}

// HarnessCPUShare is the harness's CPU time as a share of one core over the wall time.
func (r Report) HarnessCPUShare() float64 {
	if r.WallSeconds == 0 {
		return 0
	}
	return r.HarnessCPUSeconds / r.WallSeconds
}
