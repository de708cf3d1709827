package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/result"
	"github.com/lnbench/lnbench/runner"
	"github.com/lnbench/lnbench/scenario"
)

func reportCmd(stdout, stderr io.Writer) *cobra.Command {
	var history string
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "Regenerate every report of an artifacts folder from its payments.jsonl",
		Long: "Recompute the statistics of an artifacts folder from DIR/payments.jsonl, with the run's\n" +
			"metadata from DIR/summary.json (or DIR/scenario.yml when that is missing), and rewrite\n" +
			"summary.md/.csv/.json, measurements.csv, results.bench, plots.R, the PNG plots (when R\n" +
			"is installed) and report.html.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			rep, recs, err := loadRun(dir)
			if err != nil {
				return err
			}
			if err := runner.WriteAllTo(dir, rep, recs, stderr); err != nil {
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
	return cmd
}

// loadRun reads an artifacts folder: the run's metadata from summary.json
// (else scenario.yml), and cases recomputed from the raw payments, so
// reports always reflect the current analysis code.
func loadRun(dir string) (report.Report, []result.Record, error) {
	var rep report.Report
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &rep); err != nil {
			return rep, nil, fmt.Errorf("%s: %v", filepath.Join(dir, "summary.json"), err)
		}
	case errors.Is(err, os.ErrNotExist):
		s, serr := scenario.Load(filepath.Join(dir, "scenario.yml"))
		if serr != nil {
			return rep, nil, fmt.Errorf("%s has neither summary.json nor a readable scenario.yml: %v", dir, serr)
		}
		rep = report.Report{RunID: filepath.Base(dir), Scenario: s,
			Nodes:    []report.NodeInfo{{Implementation: s.Node.Implementation, Version: s.Node.Version}},
			Warnings: []string{"summary.json missing: environment and setup times unknown"}}
	default:
		return rep, nil, err
	}
	recs, err := result.ReadFile(filepath.Join(dir, "payments.jsonl"))
	if err != nil {
		return rep, nil, fmt.Errorf("reading results: %v", err)
	}
	runner.Summarize(&rep, recs)
	return rep, recs, nil
}
