package report

import (
	"fmt"
	"path/filepath"

	"github.com/lnbench/lnbench/result"
	"github.com/lnbench/lnbench/runrecord"
)

// UnknownVerdicts counts the cases compared with the baseline whose
// verdict is not known yet, from the run's manifest so far and what dir's
// payments.jsonl holds now: the question an until-known run asks between
// two blocks of launches (runner.Options.UnknownVerdicts).
func UnknownVerdicts(dir string, m runrecord.Manifest) (int, error) {
	recs, err := result.ReadFile(filepath.Join(dir, runrecord.PaymentsFile))
	if err != nil {
		return 0, fmt.Errorf("reading results: %v", err)
	}
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
