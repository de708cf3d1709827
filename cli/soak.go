package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/scenario"
)

// soakCmd runs one case at fixed concurrency for a duration (or until
// Ctrl-C) with periodic sampling, then reports drift and profiler cost.
func soakCmd(stdout, stderr io.Writer) *cobra.Command {
	var f runFlags
	var duration, every, window time.Duration
	var stagger bool
	cmd := &cobra.Command{
		Use:   "soak [scenario.yml]",
		Short: "Run one case for a duration with profiling; report throughput drift and the profiler's cost",
		Long: "Soak runs the scenario's first case (Concurrency 7 unless --param says otherwise, as the\n" +
			"original's profiling run) in back-to-back iterations for --duration or until Ctrl-C,\n" +
			"sampling every actor --window every --every. It reports payments/s against cumulative\n" +
			"payments with a fitted slope and a verdict (stable / degrading), flame graphs over time,\n" +
			"and throughput with and without sampling.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if duration < scenario.MinDuration {
				return fmt.Errorf("--duration %v: use at least %v, e.g. 10m", duration, scenario.MinDuration)
			}
			if !hasParam(f.params, "Concurrency") {
				f.params = append(f.params, "Concurrency=7")
			}
			if !hasParam(f.params, "TotalPayments") {
				f.params = append(f.params, "TotalPayments=50")
			}
			s, err := loadScenario(args, f)
			if err != nil {
				return err
			}
			if n := len(s.Cases()); n != 1 {
				return fmt.Errorf("soak runs one case, the params give %d; pin each param to one value with --param", n)
			}
			s.Name += "-soak"
			// Measured iterations run back to back for the duration.
			s.Job = scenario.Job{LaunchCount: 1, WarmupCount: 1, InvocationCount: 1, Duration: duration}
			s.Sampling = scenario.Sampling{Mode: scenario.SamplePeriodic, Every: every.String(), Window: window.String(), Stagger: stagger, Slice: "1s"}
			if err := s.Validate(); err != nil {
				return err
			}
			run, err := executeScenario(cmd, stdout, stderr, s, f, nil)
			if run.Dir == "" {
				return err
			}
			if err != nil && !errors.Is(err, context.Canceled) {
				return err
			}
			// Ctrl-C is how a soak without a duration ends: report it.
			return writeSoak(stdout, run.Dir, s)
		},
	}
	fl := cmd.Flags()
	fl.DurationVar(&duration, "duration", 10*time.Minute, "how long to measure (after setup and one warm-up iteration)")
	fl.DurationVar(&every, "every", 300*time.Second, "time between sampling windows")
	fl.DurationVar(&window, "window", 60*time.Second, "length of a sampling window")
	fl.BoolVar(&stagger, "stagger", false, "sample actors in turn rather than together")
	fl.StringArrayVar(&f.params, "param", nil, "pin a param: Name=value (repeatable)")
	addBackendFlag(fl, &f)
	addYesFlag(fl, &f)
	addNetworkFlags(fl, &f)
	return cmd
}

func hasParam(ps []string, name string) bool {
	for _, p := range ps {
		if strings.HasPrefix(p, name+"=") {
			return true
		}
	}
	return false
}

// writeSoak writes the soak report of the run in dir and prints its verdict.
func writeSoak(stdout io.Writer, dir string, s scenario.Scenario) error {
	soak, err := report.WriteSoak(dir, s)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "soak: %s; %s\nsoak report: %s\n", soak.Verdict, strings.Join(soak.Notes, "; "), filepath.Join(dir, "soak.md"))
	return nil
}
