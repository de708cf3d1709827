package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/report"
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
			"the median (|change| > --noise). With --fail-on-regression, exit 1 when any case regressed.\n" +
			"Cases match by id: in runs of several node specs the id names the spec (Node=label).\n" +
			"Warns first when the backends, machines (CPU model, cores) or node specs (build, key, flags) differ.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			base, _, err := report.Load(args[0])
			if err != nil {
				return err
			}
			nw, _, err := report.Load(args[1])
			if err != nil {
				return err
			}
			cmp, err := report.Compare(base, nw, alpha, noise)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "base: %s (%s)\nnew:  %s (%s)\n\n", args[0], base.RunID, args[1], nw.RunID)
			if err := report.CompareText(stdout, cmp); err != nil {
				return err
			}
			if regressed := cmp.Regressed(); failOnRegression && len(regressed) > 0 {
				return ErrRegression{Cases: regressed}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.Float64Var(&alpha, "alpha", report.DefaultAlpha, "significance level of the Mann-Whitney U test")
	fl.Float64Var(&noise, "noise", report.DefaultNoise, "relative change of the median below which a difference is noise")
	fl.BoolVar(&failOnRegression, "fail-on-regression", false, "exit 1 when any case regressed")
	return cmd
}
