package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/changepoint"
	"github.com/lnbench/lnbench/gitrev"
	"github.com/lnbench/lnbench/history"
)

func historyCmd(stdout, stderr io.Writer) *cobra.Command {
	var mix bool
	var out string
	var alpha float64
	cmd := &cobra.Command{
		Use:   "history [DIR]",
		Short: "Follow the runs under a folder: one series per case, build and design, with change points",
		Long: "History reads every artifacts folder under DIR (default BenchmarkArtifacts; bisect steps count)\n" +
			"and makes one series per scenario case, node build lineage (a release, or a clone whose\n" +
			"commits order the points), machine and design: a duet run measures its networks at once,\n" +
			"each on part of the machine, so its payments/s is never in a series with single-spec or\n" +
			"sequential runs (each series names its design and how many networks ran at once).\n" +
			"Points are ordered by commit where the builds have commits and by time otherwise; series by\n" +
			"scenario, then case in the natural order of its params (Concurrency=2 before 10), then build.\n" +
			"Each series follows payments/s and the median payment latency (p50); change points on both\n" +
			"come from E-divisive means with a permutation test (on a flat series, at most α chance of one\n" +
			"per figure; about 8 runs are needed at α 0.05). One that coincides with a shift of the\n" +
			"machine's own readings (disk sync ceiling, CPU used outside the run, steal) is labelled an\n" +
			"environment change. When every point of a series was measured beside the same baseline (a\n" +
			"pinned control build, --node ref=… --baseline ref), both figures are relative to it, which\n" +
			"cancels the machine's day-to-day swings.\n" +
			"Writes history.md, history.html, history.csv (the index, rebuilt each time) and a plot\n" +
			"(history.png: a row per series, payments/s and latency side by side).",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := "BenchmarkArtifacts"
			if len(args) == 1 {
				root = args[0]
			}
			if !(alpha > 0 && alpha < 1) {
				return fmt.Errorf("--alpha %g: give a level between 0 and 1, e.g. 0.05", alpha)
			}
			points, skipped, err := history.Load(root)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			opts := history.Options{MixMachines: mix, CommitOrder: commitOrder(ctx), Detect: changepoint.Options{Alpha: alpha}}
			rep := history.NewReport(root, points, skipped, opts)
			if out == "" {
				out = filepath.Join(root, "history")
			}
			if err := history.WriteAll(ctx, out, rep, stderr); err != nil {
				return err
			}
			history.WriteMarkdown(stdout, rep)
			abs, _ := filepath.Abs(out)
			fmt.Fprintf(stdout, "history: %s\n", abs)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&mix, "mix-machines", false, "put runs of different machines in one series (default: a series per machine fingerprint)")
	fl.StringVar(&out, "out", "", "folder for the history's files (default DIR/history)")
	fl.Float64Var(&alpha, "alpha", 0.05, "significance level of a series' first change-point test, per figure (the chance a flat series shows one); each side of a change is tested at half its segment's level")
	return cmd
}

// commitOrder asks each clone once for its commits' order.
func commitOrder(ctx context.Context) func(string) map[string]int {
	cache := map[string]map[string]int{}
	return func(clone string) map[string]int {
		if pos, ok := cache[clone]; ok {
			return pos
		}
		pos, err := gitrev.Order(ctx, clone)
		if err != nil {
			pos = nil
		}
		cache[clone] = pos
		return pos
	}
}
