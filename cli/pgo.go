package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/pgo"
	"github.com/lnbench/lnbench/scenario"
)

func pgoCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pgo",
		Short: "Profiles for profile-guided optimisation of node builds",
		Long: "A PGO profile is the merge of an earlier run's profiling windows. Use one with\n" +
			"lnbench build --pgo-from ARTIFACTS_DIR (or --pgo FILE), or record one with\n" +
			"lnbench pgo record.",
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(pgoRecordCmd(stdout, stderr))
	return cmd
}

// pgoRecordCmd runs a scenario with every measured iteration profiled and
// merges the windows into a profile in the cache.
func pgoRecordCmd(stdout, stderr io.Writer) *cobra.Command {
	var f runFlags
	var duration time.Duration
	var actors []string
	cmd := &cobra.Command{
		Use:   "record [scenario.yml]",
		Short: "Run a scenario with profiling and merge its windows into a PGO profile",
		Long: "Record runs each case of the scenario (after --param) for --duration on one reused\n" +
			"network, profiling every node over every measured iteration (sampling: {mode:\n" +
			"iteration}), then merges the windows into <cache>/pgo/<hash>.pgo and prints the\n" +
			"build line that uses it. The run's artifacts folder stays, so\n" +
			"lnbench build --pgo-from DIR gives the same profile again.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if duration < scenario.MinDuration {
				return fmt.Errorf("--duration %v: use at least %v, e.g. 60s", duration, scenario.MinDuration)
			}
			s, err := loadScenario(args, f)
			if err != nil {
				return err
			}
			s.Name += "-pgo"
			s.Job = scenario.Job{LaunchCount: 1, WarmupCount: 1, InvocationCount: 1, Duration: duration}
			s.ReuseNetwork = true
			s.Sampling = scenario.DefaultSampling
			s.Sampling.Mode = scenario.SampleIteration
			if err := checkScenario(s); err != nil {
				return err
			}
			run, runErr := executeScenario(cmd, stdout, stderr, s, f, nil)
			if run.Dir == "" || (runErr != nil && !errors.Is(runErr, context.Canceled)) {
				return runErr
			}
			// Ctrl-C ends a recording early: what was profiled still counts.
			path, info, err := pgo.MergeFromRun(f.cache, run.Dir, actors)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "pgo profile: %s\n  %s\n", path, info)
			fmt.Fprintf(stdout, "build with it: lnbench build --version %s --pgo %s\n", s.BaselineSpec().Build, path)
			fmt.Fprintf(stdout, "  (or again from the run: lnbench build --pgo-from %s)\n", info.Dir)
			return runErr
		},
	}
	fl := cmd.Flags()
	fl.DurationVar(&duration, "duration", 60*time.Second, "how long to measure each case (after one warm-up iteration)")
	fl.StringSliceVar(&actors, "pgo-actors", nil, "merge only these actors' windows, e.g. alice,bob (default: every node)")
	fl.StringArrayVar(&f.params, "param", nil, "override a param: Name=v1,v2 (repeatable); each case is measured for --duration")
	addBackendFlag(fl, &f)
	addYesFlag(fl, &f)
	addNetworkFlags(fl, &f) // the profile goes to the cache's pgo/
	return cmd
}
