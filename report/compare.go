package report

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/lnbench/lnbench/stats"
)

// Comparison is two runs compared case by case.
type Comparison struct {
	BaseRun, NewRun string
	Alpha, Noise    float64
	// Effect is the change "same" excludes.
	Effect float64
	Cases  []CaseComparison // cases in both runs, in the new run's order
	Notes  []string         // cases in one run only, statistical caveats
	// Warnings say how the runs differ besides the change under test:
	// backend, machine, node spec builds and flags.
	Warnings []string
}

// CaseComparison compares one case of two runs.
type CaseComparison struct {
	ID string
	// Ratio is the verdict: the case's primary metric (mean iteration
	// time, or p50 latency in an open loop), new over base, tested with
	// launches as the unit as a run's verdicts are, unpaired (two runs
	// share no launch rounds), held together over the cases by Holm.
	Ratio Ratio
	// Medians of the complete iterations, to read beside the verdict: the
	// iteration time and one iteration's payments/s.
	TimeBase, TimeNew float64
	PPSBase, PPSNew   float64
}

// Regressed lists the cases whose verdict is slower.
func (c Comparison) Regressed() []string {
	var out []string
	for _, cc := range c.Cases {
		if cc.Ratio.Verdict == VerdictSlower {
			out = append(out, cc.ID)
		}
	}
	return out
}

// Compare tests each case in both runs the way a run's own verdicts do:
// one value per launch (Welch's t test on the log scale, since the two
// runs' launches are not paired), faster or slower when p < alpha (Holm
// over the cases) and the ratio moved more than noise, same when the
// interval lies within ±effect, else not yet known. A side with one launch
// gives not yet known with the launch count that would tell: iterations
// pooled within a launch cannot see the 3–10% launch-to-launch variance
// (Mann-Whitney on them called 13 of 24 A/A comparisons different here).
// It is an error when the runs have no case in common. Cases match by id,
// which names the node spec (Node=label) in runs of several specs; a case
// left unmatched then matches the case of the same spec label and other
// params, so a run of one spec compares with its spec's cases in a run of
// several.
func Compare(base, nw Report, alpha, noise, effect float64) (Comparison, error) {
	cmp := Comparison{BaseRun: base.RunID, NewRun: nw.RunID, Alpha: alpha, Noise: noise, Effect: effect, Warnings: setupDifferences(base, nw)}
	cfg := verdictConfig{alpha: alpha, noise: noise, effect: effect, separateRuns: true}
	byID := map[string]Row{}
	bySpec := map[string]string{}
	for _, c := range base.Cases {
		byID[c.ID] = c
		if k, ok := specCaseKey(c); ok {
			bySpec[k] = c.ID
		}
	}
	var rows []Row // the new run's matched cases, their Ratio against base
	for _, nc := range nw.Cases {
		bc, ok := byID[nc.ID]
		if k, byKey := specCaseKey(nc); !ok && byKey {
			bc, ok = byID[bySpec[k]]
		}
		if !ok {
			cmp.Notes = append(cmp.Notes, nc.ID+": only in new")
			continue
		}
		delete(byID, bc.ID)
		rt := ratioOf(nc, bc, cfg)
		nc.Ratio = &rt
		rows = append(rows, nc)
		bs, bp := samples(bc)
		ns, np := samples(nc)
		cmp.Cases = append(cmp.Cases, CaseComparison{ID: nc.ID, TimeBase: median(bs), TimeNew: median(ns), PPSBase: median(bp), PPSNew: median(np)})
		for _, side := range []struct {
			run string
			r   Report
			id  string
		}{{"base", base, bc.ID}, {"new", nw, nc.ID}} {
			if rc, ok := side.r.ResourcesOf(side.id); ok && rc.Outside != nil && rc.Outside.Busy {
				cmp.Warnings = append(cmp.Warnings, fmt.Sprintf("%s: %s in the %s run (other processes used %.2f cores)", nc.ID, BusyNote, side.run, rc.Outside.Cores))
			}
		}
	}
	holmAcrossCases(rows, cfg)
	for i, r := range rows {
		cmp.Cases[i].Ratio = *r.Ratio
		for _, n := range r.Ratio.Notes {
			cmp.Notes = append(cmp.Notes, r.ID+": "+n)
		}
	}
	for _, c := range base.Cases {
		if _, ok := byID[c.ID]; ok {
			cmp.Notes = append(cmp.Notes, c.ID+": only in base")
		}
	}
	if len(cmp.Cases) == 0 {
		return cmp, fmt.Errorf("no case in common between %s and %s", base.RunID, nw.RunID)
	}
	return cmp, nil
}

// median is the middle of xs (NaN when empty).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return stats.Percentiles(xs, 50)[0]
}

// specCaseKey is a case's spec label and its other params: it matches a
// run of one spec (ids without Node) with the same spec's cases in a run
// of several, once the ids found no match.
func specCaseKey(c Row) (string, bool) {
	if c.Node == "" {
		return "", false
	}
	return c.Node + "|" + withoutNode(c.Params), true
}

// samples are the complete iterations' times and payments/s: the same
// iterations the summary statistics use.
func samples(c Row) (secs, pps []float64) {
	for _, it := range c.Iterations {
		if it.Complete {
			secs = append(secs, it.Seconds)
			pps = append(pps, it.PaymentsPerSec)
		}
	}
	return secs, pps
}

// CompareText renders the warnings, the comparison as a table, the rule,
// then the notes.
func CompareText(w io.Writer, c Comparison) error {
	for _, m := range c.Warnings {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
	if len(c.Warnings) > 0 {
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Case\tTested\tRatio (new/base)\t%s\tp (Holm)\tLaunches\tMDE\tVerdict\t│ Time (median): base\tnew\tΔ\t│ Payments/s (median): base\tnew\tΔ\n", ciLabel(c.Alpha))
	for _, cc := range c.Cases {
		rt := cc.Ratio
		tested := "mean iteration time"
		if rt.Metric == MetricP50 {
			tested = "p50 latency"
		}
		if rt.Level == LevelIterations {
			tested += " (iterations of one launch)"
		}
		ci, p, mde := "NA", pText(rt.P), "NA"
		if rt.Low > 0 {
			ci = fmt.Sprintf("%.3f–%.3f", rt.Low, rt.High)
		}
		if rt.PHolm > 0 {
			p += " (" + pText(rt.PHolm) + ")"
		}
		if rt.MDE > 0 {
			mde = fmt.Sprintf("%.1f%%", 100*rt.MDE)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t%s\t%s\t%d+%d\t%s\t%s\t│ %.4g s\t%.4g s\t%+.1f%%\t│ %.2f\t%.2f\t%+.1f%%\n", cc.ID, tested,
			rt.Of, ci, p, rt.NBase, rt.NNew, mde, rt.Verdict,
			cc.TimeBase, cc.TimeNew, 100*(cc.TimeNew/cc.TimeBase-1), cc.PPSBase, cc.PPSNew, 100*(cc.PPSNew/cc.PPSBase-1))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nalpha=%g noise=%.1f%% effect=%g%%: launches are the unit (Welch's t test of launch values, two runs share no rounds); faster/slower when p < alpha after Holm over the cases and |ratio-1| > noise; same when the interval lies within ±effect; one launch a side is never more than not yet known.\n",
		c.Alpha, 100*c.Noise, 100*c.Effect)
	// The run's table divides all successes by the summed time: a figure
	// that differs from this median whenever iterations differ.
	fmt.Fprintln(w, "Time and Payments/s are medians over the complete iterations (one iteration's payments/s: its successes / its wall time); a run's own table gives Payments/s as all successes / summed iteration time.")
	for _, n := range c.Notes {
		if _, err := fmt.Fprintf(w, "note: %s\n", n); err != nil {
			return err
		}
	}
	return nil
}
