package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/stats"
)

// ErrRegression is returned by compare --fail-on-regression when a case
// regressed, so the process exits 1 (CI gate).
type ErrRegression struct{ Cases []string }

func (e ErrRegression) Error() string {
	return fmt.Sprintf("%d case(s) regressed: %v", len(e.Cases), e.Cases)
}

func compareCmd(stdout, stderr io.Writer) *cobra.Command {
	var alpha, noise float64
	var failOnRegression bool
	cmd := &cobra.Command{
		Use:   "compare BASE NEW",
		Short: "Compare two artifacts folders case by case: improved, regressed or within noise",
		Long: "For each case in both folders, compare the measured iteration times and the per-iteration\n" +
			"payments/s with a Mann-Whitney U test (p < --alpha) and a noise threshold on the change of\n" +
			"the median (|change| > --noise). With --fail-on-regression, exit 1 when any case regressed.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			base, _, err := loadRun(args[0])
			if err != nil {
				return err
			}
			nw, _, err := loadRun(args[1])
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "base: %s (%s)\nnew:  %s (%s)\n\n", args[0], base.RunID, args[1], nw.RunID)
			regressed, err := compareRuns(stdout, base, nw, alpha, noise)
			if err != nil {
				return err
			}
			if failOnRegression && len(regressed) > 0 {
				return ErrRegression{Cases: regressed}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.Float64Var(&alpha, "alpha", 0.05, "significance level of the Mann-Whitney U test")
	fl.Float64Var(&noise, "noise", 0.02, "relative change of the median below which a difference is noise")
	fl.BoolVar(&failOnRegression, "fail-on-regression", false, "exit 1 when any case regressed")
	return cmd
}

// samples are the complete iterations' times and payments/s: the same
// iterations the summary statistics use.
func samples(c report.Row) (secs, pps []float64) {
	for _, it := range c.Iterations {
		if it.Complete {
			secs = append(secs, it.Seconds)
			pps = append(pps, it.PaymentsPerSec)
		}
	}
	return secs, pps
}

// compareRuns prints the comparison table and returns the regressed cases.
func compareRuns(w io.Writer, base, nw report.Report, alpha, noise float64) ([]string, error) {
	byID := map[string]report.Row{}
	for _, c := range base.Cases {
		byID[c.ID] = c
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "Case\tTime: base\tnew\tΔ median\tp\tverdict\t│ Payments/s: base\tnew\tΔ median\tp\tverdict")
	var regressed, notes []string
	matched := 0
	for _, nc := range nw.Cases {
		bc, ok := byID[nc.ID]
		if !ok {
			notes = append(notes, nc.ID+": only in new")
			continue
		}
		delete(byID, nc.ID)
		matched++
		bs, bp := samples(bc)
		ns, np := samples(nc)
		t := stats.Compare(bs, ns, alpha, noise, true)
		p := stats.Compare(bp, np, alpha, noise, false)
		fmt.Fprintf(tw, "%s\t%.4g s\t%.4g s\t%+.1f%%\t%.3g\t%s\t│ %.2f\t%.2f\t%+.1f%%\t%.3g\t%s\n", nc.ID,
			t.BaseMedian, t.NewMedian, 100*t.Change, t.P, t.Verdict, p.BaseMedian, p.NewMedian, 100*p.Change, p.P, p.Verdict)
		if t.Verdict == stats.Regressed || p.Verdict == stats.Regressed {
			regressed = append(regressed, nc.ID)
		}
		for _, m := range uniq(append(t.Warnings, p.Warnings...)) {
			notes = append(notes, nc.ID+": "+m)
		}
	}
	for _, c := range base.Cases {
		if _, ok := byID[c.ID]; ok {
			notes = append(notes, c.ID+": only in base")
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "\nalpha=%g noise=%.1f%%: a change is improved/regressed only when p < alpha and |Δ median| > noise.\n", alpha, 100*noise)
	for _, n := range notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if matched == 0 {
		return nil, fmt.Errorf("no case in common between %s and %s", base.RunID, nw.RunID)
	}
	return regressed, nil
}

func uniq(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
