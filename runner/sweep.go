package runner

import (
	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/sweep"
)

// observeSweep analyses a case's records of one launch, as its run kept
// them (caseExec.records), and records it in the sweep, so later (higher)
// steps of a broken group are skipped.
func observeSweep(sw *sweep.Sweep, c scenario.Case, recs []result.Record, sc scenario.Scenario) {
	if sw == nil {
		return
	}
	res := analysis.Analyze(recs, []string{c.ID()}, map[string]analysis.Shape{c.ID(): {Payments: c.Workload.TotalPayments, Invocations: sc.Job.InvocationCount}})[0]
	sw.Observe(c.Values, res)
}
