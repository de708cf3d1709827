package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
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

// VerdictCounter counts the cases compared with the baseline whose verdict
// is not known yet, from the run's manifest so far and its payment records
// so far (the result stream as the run wrote it, kept in memory: a look
// does not read payments.jsonl back). Verdicts are the report's to tell
// (report.UnknownVerdicts), so the runner asks its caller instead of
// importing the report.
type VerdictCounter func(recs []result.Record, m record.Manifest) (int, error)

var errNoVerdictCounter = errors.New("until known needs Options.UnknownVerdicts to count the verdicts not yet known")

// untilKnown adds blocks of launch rounds while some verdict against the
// baseline is not yet known, up to the cap, and records why it stopped.
// Each look tests at alpha/looks (record.Design.Looks), so stopping at the
// first look that happens to be significant cannot raise the false-positive
// rate above alpha (a Bonferroni bound over the looks).
func (e *execution) untilKnown(ctx context.Context) error {
	opts, rec := e.opts, e.rec
	s := opts.Scenario
	if rec.Design == nil || !rec.Design.UntilKnown {
		return nil
	}
	d := rec.Design
	for launches := s.Job.LaunchCount; ; launches += roundsPerLook {
		unknown, err := opts.UnknownVerdicts(e.w.Kept(), *rec)
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
		if err := e.runPlans(ctx, plans); err != nil {
			d.Stopped = "interrupted"
			return err
		}
	}
}
