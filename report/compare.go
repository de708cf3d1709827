package report

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/lnbench/lnbench/stats"
)

// Comparison is two runs compared case by case.
type Comparison struct {
	BaseRun, NewRun string
	Alpha, Noise    float64
	Cases           []CaseComparison // cases in both runs, in the new run's order
	Notes           []string         // cases in one run only, statistical caveats
	// Warnings say how the runs differ besides the change under test:
	// backend, machine, node spec builds and flags.
	Warnings []string
}

// CaseComparison compares one case's iteration times and payments/s.
type CaseComparison struct {
	ID                   string
	Time, PaymentsPerSec stats.Comparison
}

// Regressed lists the cases whose time or throughput regressed.
func (c Comparison) Regressed() []string {
	var out []string
	for _, cc := range c.Cases {
		if cc.Time.Verdict == stats.Regressed || cc.PaymentsPerSec.Verdict == stats.Regressed {
			out = append(out, cc.ID)
		}
	}
	return out
}

// Compare tests each case in both runs with a Mann-Whitney U test (p <
// alpha) and a noise threshold on the change of the median; it is an error
// when the runs have no case in common. Cases match by id, which names the
// node spec (Node=label) in runs of several specs; a case left unmatched
// then matches the case of the same spec label and other params, so a run
// of one spec compares with its spec's cases in a run of several.
func Compare(base, nw Report, alpha, noise float64) (Comparison, error) {
	cmp := Comparison{BaseRun: base.RunID, NewRun: nw.RunID, Alpha: alpha, Noise: noise, Warnings: setupDifferences(base, nw)}
	byID := map[string]Row{}
	bySpec := map[string]string{}
	for _, c := range base.Cases {
		byID[c.ID] = c
		if k, ok := specCaseKey(c); ok {
			bySpec[k] = c.ID
		}
	}
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
		bs, bp := samples(bc)
		ns, np := samples(nc)
		cc := CaseComparison{ID: nc.ID, Time: stats.Compare(bs, ns, alpha, noise, true), PaymentsPerSec: stats.Compare(bp, np, alpha, noise, false)}
		cmp.Cases = append(cmp.Cases, cc)
		for _, side := range []struct {
			run string
			r   Report
			id  string
		}{{"base", base, bc.ID}, {"new", nw, nc.ID}} {
			if rc, ok := side.r.ResourcesOf(side.id); ok && rc.Outside != nil && rc.Outside.Busy {
				cmp.Warnings = append(cmp.Warnings, fmt.Sprintf("%s: %s in the %s run (other processes used %.2f cores)", nc.ID, BusyNote, side.run, rc.Outside.Cores))
			}
		}
		var caveats []string
		for _, m := range append(cc.Time.Warnings, cc.PaymentsPerSec.Warnings...) {
			if !slices.Contains(caveats, m) {
				caveats = append(caveats, m)
				cmp.Notes = append(cmp.Notes, nc.ID+": "+m)
			}
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
	fmt.Fprintln(tw, "Case\tTime (median): base\tnew\tΔ median\tp\tverdict\t│ Payments/s (median): base\tnew\tΔ median\tp\tverdict")
	for _, cc := range c.Cases {
		t, p := cc.Time, cc.PaymentsPerSec
		fmt.Fprintf(tw, "%s\t%.4g s\t%.4g s\t%+.1f%%\t%.3g\t%s\t│ %.2f\t%.2f\t%+.1f%%\t%.3g\t%s\n", cc.ID,
			t.BaseMedian, t.NewMedian, 100*t.Change, t.P, verdictText(t), p.BaseMedian, p.NewMedian, 100*p.Change, p.P, verdictText(p))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nalpha=%g noise=%.1f%%: a change is improved/regressed only when p < alpha and |Δ median| > noise.\n", c.Alpha, 100*c.Noise)
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

// verdictText is the verdict, saying why a change with too few samples
// cannot count whatever its size.
func verdictText(c stats.Comparison) string {
	if c.TooFewSamples {
		return "not significant (too few samples)"
	}
	return c.Verdict.String()
}
