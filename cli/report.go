package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/report"
)

func reportCmd(stdout, stderr io.Writer) *cobra.Command {
	var history string
	var plots plotsFlag
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "Regenerate every report of an artifacts folder from its payments.jsonl",
		Long: "Recompute the statistics of an artifacts folder from DIR/payments.jsonl, with the run's\n" +
			"record from DIR/run.json (DIR/summary.json in folders from before run.json, else\n" +
			"DIR/scenario.yml), and rewrite\n" +
			"summary.md/.csv/.json, measurements.csv, results.bench, plots.R, the PNG plots (when R\n" +
			"is installed), report.html and, for a profiled run, the flame graph timeline.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			plots.set = cmd.Flags().Changed("plots")
			rep, err := report.RenderWith(dir, stderr, plots.options())
			if err != nil {
				return err
			}
			if history != "" {
				if err := report.AppendHistory(history, rep); err != nil {
					return err
				}
			}
			if err := report.Text(stdout, rep); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "\nreports: %s\n", dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&history, "history", "", "also append one row per case to DIR/history.csv")
	addPlotsFlag(cmd.Flags(), &plots)
	return cmd
}
