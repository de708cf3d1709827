package runner

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/result"
	"github.com/lnbench/lnbench/sweep"
)

// roundsPerLook is how many launch rounds until-known adds between two
// looks at the verdicts: a whole A B B A block, so every look sees
// balanced launches.
const roundsPerLook = 2

// looks is how many times until-known may read the verdicts: after the
// planned launches, then after each block up to the cap.
func looks(planned, max int) int {
	return 1 + (max-planned+roundsPerLook-1)/roundsPerLook
}

// untilKnown adds blocks of launch rounds while some verdict against the
// baseline is not yet known, up to the cap, and records why it stopped.
// Each look tests at alpha/looks (report.Design.Looks), so stopping at the
// first look that happens to be significant cannot raise the false-positive
// rate above alpha (a Bonferroni bound over the looks).
func untilKnown(ctx context.Context, opts Options, run Run, w *result.Writer, fw *faults.Writer, rep *report.Report,
	sw *sweep.Sweep, configs map[string]backend.NodeConfig) error {
	s := opts.Scenario
	if rep.Design == nil || !rep.Design.UntilKnown {
		return nil
	}
	d := rep.Design
	for launches := s.Job.LaunchCount; ; launches += roundsPerLook {
		unknown, err := unknownVerdicts(run.Dir, *rep)
		if err != nil {
			return err
		}
		if unknown == 0 {
			d.Stopped = fmt.Sprintf("every verdict known after %d launches per spec", launches)
			return nil
		}
		if launches >= d.MaxLaunches {
			d.Stopped = fmt.Sprintf("cap reached: %d launches per spec, %d verdict(s) not yet known", launches, unknown)
			return nil
		}
		next := min(launches+roundsPerLook, d.MaxLaunches)
		fmt.Fprintf(opts.Log, "until known: %d verdict(s) not yet known after %d launches per spec; adding rounds %d–%d\n", unknown, launches, launches+1, next)
		plans, err := planRounds(s, launches, next)
		if err != nil {
			return err
		}
		d.Rounds = append(d.Rounds, launchRounds(specLabels(s), d.Order, d.Seed, launches, next)...)
		if err := runPlans(ctx, opts, run, plans, w, fw, rep, sw, configs); err != nil {
			d.Stopped = "interrupted"
			return err
		}
	}
}

// unknownVerdicts counts the compared cases whose verdict is not known yet
// from what payments.jsonl holds now.
func unknownVerdicts(dir string, rep report.Report) (int, error) {
	recs, err := result.ReadFile(filepath.Join(dir, "payments.jsonl"))
	if err != nil {
		return 0, fmt.Errorf("reading results: %v", err)
	}
	report.Summarize(&rep, recs)
	return countUnknown(rep), nil
}

// countUnknown counts cases compared with the baseline without a verdict.
func countUnknown(rep report.Report) int {
	n := 0
	for _, c := range rep.Cases {
		if c.Ratio != nil && (c.Ratio.Verdict == report.VerdictUnknown || c.Ratio.Verdict == report.VerdictTooFew) {
			n++
		}
	}
	return n
}
