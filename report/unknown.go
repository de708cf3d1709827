package report

import (
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
)

// UnknownVerdicts counts the cases compared with the baseline whose
// verdict is not known yet, from the run's manifest and payment records so
// far: the question an until-known run asks between two blocks of launches
// (runner.Options.UnknownVerdicts).
func UnknownVerdicts(recs []result.Record, m record.Manifest) (int, error) {
	rep := Report{Manifest: m}
	Summarize(&rep, recs)
	return countUnknown(rep), nil
}

// countUnknown counts cases compared with the baseline without a verdict.
func countUnknown(rep Report) int {
	n := 0
	for _, c := range rep.Cases {
		if c.Ratio != nil && (c.Ratio.Verdict == VerdictUnknown || c.Ratio.Verdict == VerdictTooFew) {
			n++
		}
	}
	return n
}
