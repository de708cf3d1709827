package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/scenario"
)

// ErrRegression is returned by compare --fail-on-regression when a case
// regressed, so the process exits 1 (CI gate).
type ErrRegression struct{ Cases []string }

func (e ErrRegression) Error() string {
	return fmt.Sprintf("%d case(s) regressed: %v", len(e.Cases), e.Cases)
}

func compareCmd(stdout, stderr io.Writer) *cobra.Command {
	var alpha, noise float64
	var effect string
	var failOnRegression bool
	cmd := &cobra.Command{
		Use:   "compare BASE NEW",
		Short: "Compare two artifacts folders case by case: faster, slower, same or not yet known",
		Long: "For each case in both folders, test its primary metric (mean iteration time; p50 latency in an\n" +
			"open loop) with launches as the unit, as a run's verdicts do: Welch's t test of the launch values\n" +
			"(the runs share no rounds), faster/slower when p < --alpha after Holm over the cases and the\n" +
			"ratio moved more than --noise, same when the interval lies within ±--effect. A side with one\n" +
			"launch is never more than not yet known (its iterations cannot see launch-to-launch variance);\n" +
			"the note says how many launches would tell. With --fail-on-regression, exit 1 when any case is slower.\n" +
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
			eff := scenario.DefaultEffect
			if effect != "" {
				if eff, err = parseEffect(effect); err != nil {
					return err
				}
			}
			cmp, err := report.Compare(base, nw, alpha, noise, eff)
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
	fl.Float64Var(&alpha, "alpha", report.DefaultAlpha, "significance level of the launch-level test, held over the cases (Holm)")
	fl.Float64Var(&noise, "noise", report.DefaultNoise, "relative change below which a significant difference is noise")
	fl.StringVar(&effect, "effect", "", fmt.Sprintf("smallest change worth knowing, e.g. 3%% (default %g%%): \"same\" excludes larger ones", 100*scenario.DefaultEffect))
	fl.BoolVar(&failOnRegression, "fail-on-regression", false, "exit 1 when any case is slower")
	return cmd
}
