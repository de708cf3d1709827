package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/result"
	"github.com/lnbench/lnbench/scenario"
)

// Load reads an artifacts folder: the run's metadata from summary.json
// (else scenario.yml) and the cases recomputed from the raw payments, so a
// report always reflects the current analysis code.
func Load(dir string) (Report, []result.Record, error) {
	var rep Report
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &rep); err != nil {
			return rep, nil, fmt.Errorf("%s: %v", filepath.Join(dir, "summary.json"), err)
		}
	case errors.Is(err, os.ErrNotExist):
		s, serr := scenario.Load(filepath.Join(dir, "scenario.yml"))
		if serr != nil {
			return rep, nil, fmt.Errorf("%s has neither summary.json nor a readable scenario.yml: %v", dir, serr)
		}
		rep = Report{RunID: filepath.Base(dir), Scenario: s,
			Warnings: []string{"summary.json missing: environment and setup times unknown"}}
		for _, sp := range s.Specs() {
			rep.Nodes = append(rep.Nodes, NodeInfo{Label: sp.Label, Baseline: sp.Label == s.Baseline,
				Implementation: sp.Implementation(), Version: sp.Version(), Build: sp.Build})
		}
	default:
		return rep, nil, err
	}
	recs, err := result.ReadFile(filepath.Join(dir, "payments.jsonl"))
	if err != nil {
		return rep, nil, fmt.Errorf("reading results: %v", err)
	}
	Summarize(&rep, recs)
	LoadResources(dir, &rep, recs)
	LoadFaults(dir, &rep, recs)
	// Folders written before the analysis warnings had their own field
	// stored them among the run's: drop those copies, they are recomputed.
	rep.Warnings = slices.DeleteFunc(rep.Warnings, func(w string) bool { return slices.Contains(rep.AnalysisWarnings, w) })
	return rep, recs, nil
}

// Summarize recomputes rep.Cases (with their Node and, against a baseline
// spec, Ratio) and rep.AnalysisWarnings from the records, in scenario case
// order; the run's own Warnings are left as they are, so
// summarizing again never repeats a warning.
func Summarize(rep *Report, recs []result.Record) {
	s := rep.Scenario
	var ids []string
	shapes := map[string]analysis.Shape{}
	params := map[string][]scenario.Value{}
	for _, c := range s.Cases() {
		ids = append(ids, c.ID())
		shapes[c.ID()] = analysis.Shape{Payments: c.Workload.TotalPayments, Invocations: s.Job.InvocationCount, PerLaunch: perLaunch(s.Job)}
		params[c.ID()] = c.Values
	}
	rep.Cases, rep.AnalysisWarnings = nil, nil
	routes := analysis.AnalyzeRoutes(recs)
	rep.Routes = &routes
	for _, c := range analysis.Analyze(recs, ids, shapes) {
		if c.Payments == 0 {
			continue // case never reached (run interrupted before it)
		}
		if c.Time.N == 0 {
			rep.AnalysisWarnings = append(rep.AnalysisWarnings, fmt.Sprintf("%s: interrupted before its first complete iteration (%d payments recorded in payments.jsonl); left out of the table", c.ID, c.Payments))
			continue
		}
		rep.Cases = append(rep.Cases, Row{Method: s.Method, Params: params[c.ID], Node: nodeLabelOf(*rep, params[c.ID]), Case: c})
	}
	fillRatios(rep)
	fillSamplingOverhead(rep)
	rep.CostCurves = costCurves(*rep)
}

// perLaunch is how many measured iterations one launch numbers: the runner
// offsets launch L's by L·IterationCount; a timed job has one launch.
func perLaunch(j scenario.Job) int {
	if j.Timed() {
		return 0
	}
	return j.IterationCount
}
