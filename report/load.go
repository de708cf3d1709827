package report

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/scenario"
)

// Load reads an artifacts folder: the run's manifest (run.json) and the
// cases recomputed from the raw streams, so a report always reflects the
// current analysis code. Folders written before the manifest load their
// record from summary.json, else scenario.yml (loadLegacy).
func Load(dir string) (Report, []result.Record, error) {
	var rep Report
	legacy := false
	m, err := record.Read(dir)
	switch {
	case err == nil:
		rep.Manifest = m
	case errors.Is(err, os.ErrNotExist):
		legacy = true
		if rep, err = loadLegacy(dir); err != nil {
			return rep, nil, err
		}
	default:
		return rep, nil, err
	}
	recs, err := result.ReadFile(filepath.Join(dir, record.PaymentsFile))
	if err != nil {
		return rep, nil, fmt.Errorf("reading results: %v", err)
	}
	Summarize(&rep, recs)
	LoadResources(dir, &rep, recs)
	LoadFaults(dir, &rep, recs)
	if legacy {
		dropLegacyAnalysisWarnings(&rep)
	}
	return rep, recs, nil
}

// Render loads dir and writes every report into it: what `lnbench run`
// does once the runner has left its record, and `lnbench report` again.
func Render(dir string, log io.Writer) (Report, error) {
	return RenderWith(dir, log, RenderOptions{})
}

// RenderWith is Render leaving out what opts says.
func RenderWith(dir string, log io.Writer, opts RenderOptions) (Report, error) {
	rep, recs, err := Load(dir)
	if err != nil {
		return rep, err
	}
	return rep, WriteAllWith(dir, rep, recs, log, opts)
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
		shapes[c.ID()] = analysis.Shape{Payments: c.Workload.TotalPayments, Invocations: s.Job.InvocationCount,
			PerLaunch: rep.perLaunch(), DuetPerLaunch: rep.duetPerLaunch()}
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
			rep.AnalysisWarnings = append(rep.AnalysisWarnings, fmt.Sprintf("%s: interrupted before its first complete iteration (%d payments recorded in %s); left out of the table", c.ID, c.Payments, record.PaymentsFile))
			continue
		}
		rep.Cases = append(rep.Cases, Row{Method: s.Method, Params: params[c.ID], Node: nodeLabelOf(*rep, params[c.ID]), Case: c})
	}
	fillRatios(rep)
	fillSamplingOverhead(rep)
	rep.CostCurves = costCurves(*rep)
}

// perLaunch is how many measured iterations one launch numbers: the runner
// offsets launch L's by L·IterationCount (by L·its solo half in the
// duet-solo design); a timed job has one launch.
func (r Report) perLaunch() int {
	j := r.Scenario.Job
	switch {
	case j.Timed():
		return 0
	case r.Design != nil && r.Design.Name == scenario.DesignDuetSolo:
		return scenario.SoloIterations(j.IterationCount)
	}
	return j.IterationCount
}

// duetPerLaunch is how many duet iterations one launch of the duet-solo
// design numbers (0 in any other design).
func (r Report) duetPerLaunch() int {
	if r.Design == nil || r.Design.Name != scenario.DesignDuetSolo || r.Scenario.Job.Timed() {
		return 0
	}
	return r.Scenario.Job.IterationCount - scenario.SoloIterations(r.Scenario.Job.IterationCount)
}
