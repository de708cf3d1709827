package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/nodespec"
	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage/guard"
)

// calibrateCmd runs the A/A calibration: one build against an identical
// copy of itself, in the chosen design, read as many comparisons; every
// "faster" or "slower" is a false positive.
func calibrateCmd(stdout, stderr io.Writer) *cobra.Command {
	var f runFlags
	var pairs, window int
	var from []string
	var against []string
	cmd := &cobra.Command{
		Use:   "calibrate [scenario.yml]",
		Short: "Calibrate the verdicts: a node spec against a copy of itself (false-positive rate) or a known change (detection rate)",
		Long: "Calibrate runs one node spec (--node, else the scenario's) as spec a and as spec b, the\n" +
			"baseline a, for --pairs launch pairs in the design given (--design), then cuts the pairs\n" +
			"into consecutive windows of --window pairs and reads each window of each case as one\n" +
			"comparison, with the run's alpha and noise threshold. Nothing changed between a and b,\n" +
			"so every \"faster\" or \"slower\" is a false positive: calibration.md and calibration.json\n" +
			"in the artifacts folder give their rate with a 95% upper bound. --from DIR reads an\n" +
			"earlier calibration run (or any run of specs against a baseline) again; given several\n" +
			"times, it counts their comparisons together (calibration.md and .json go into the first).\n\n" +
			"--against SPEC (repeatable) compares the spec with a changed build instead of a copy (a\n" +
			"tree with a known slowdown): each window that finds the change all the pairs together\n" +
			"establish counts as detected, and calibration.md gives the detection rate at --window\n" +
			"launch pairs, the power of a comparison at that launch count.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.noteFreshSet(cmd)
			if len(from) > 0 {
				return writeCalibration(stdout, from, window)
			}
			if pairs < window {
				return fmt.Errorf("--pairs %d is below --window %d: give at least one window of launch pairs", pairs, window)
			}
			s, err := loadScenario(args, f)
			if err != nil {
				return err
			}
			if err := calibrationScenario(&s, pairs, against); err != nil {
				return err
			}
			run, err := executeScenario(cmd, stdout, stderr, s, f, nil)
			if run.Dir == "" {
				return err
			}
			if err != nil && !errors.Is(err, context.Canceled) {
				return err
			}
			// Ctrl-C keeps what was measured: the windows completed so far.
			if cerr := writeCalibration(stdout, []string{run.Dir}, window); cerr != nil {
				return errors.Join(err, cerr)
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&pairs, "pairs", 4*scenario.DefaultCompareLaunches, "launch pairs to run")
	fl.IntVar(&window, "window", scenario.DefaultCompareLaunches, "launch pairs per comparison: the launch count the verdicts are calibrated for")
	fl.StringArrayVar(&from, "from", nil, "read the calibration of an existing artifacts folder instead of running (repeatable: the runs counted together)")
	fl.StringArrayVar(&against, "against", nil, "a changed spec to compare with instead of a copy, [LABEL=]IMPL@VERSION|IMPL@src:PATH[+option=value…] (repeatable): its detection rate")
	fl.StringArrayVar(&f.params, "param", nil, "override a param: Name=v1,v2 (repeatable)")
	fl.StringArrayVar(&f.jobs, "job", nil, "override a job setting: Name=value (LaunchCount is --pairs)")
	addBackendFlag(fl, &f)
	addYesFlag(fl, &f)
	fl.BoolVar(&f.reuse, "reuse-network", false, "run cases that share a topology on one network instead of a fresh one each")
	addNetworkFlags(fl, &f)
	addSnapshotFlags(fl, &f)
	addCompareFlags(fl, &f.compare)
	return cmd
}

// calibrationScenario turns s's one node spec into the baseline a and
// either a copy of it, b (A/A), or the changed specs against, with pairs
// launch rounds.
func calibrationScenario(s *scenario.Scenario, pairs int, against []string) error {
	specs := s.Specs()
	if len(specs) != 1 {
		return fmt.Errorf("calibrate compares one node spec with a copy of itself or with --against; give one --node (the scenario has %d)", len(specs))
	}
	a := specs[0]
	a.Label = "a"
	others := []nodespec.Spec{a}
	others[0].Label = "b"
	if len(against) > 0 {
		var err error
		if others, err = scenario.ParseNodeFlags(against); err != nil {
			return fmt.Errorf("--against: %v", strings.TrimPrefix(err.Error(), "--node: "))
		}
		for i := range others {
			if others[i].Label == "a" {
				return fmt.Errorf("--against %s: the label a is the baseline's; choose another (LABEL=SPEC)", against[i])
			}
		}
	}
	s.Nodes, s.Baseline = append([]nodespec.Spec{a}, others...), "a"
	s.Job.LaunchCount, s.LaunchCountSet = pairs, true
	if len(against) > 0 {
		s.Name += "-Detection"
	} else {
		s.Name += "-AA"
	}
	if err := s.Validate(); err != nil {
		return err
	}
	_, err := guard.FitDesign(s)
	return err
}

// writeCalibration reads dirs' runs as one calibration and writes
// calibration.md and calibration.json into the first.
func writeCalibration(stdout io.Writer, dirs []string, window int) error {
	var cals []report.Calibration
	for _, dir := range dirs {
		rep, _, err := report.Load(dir)
		if err != nil {
			return err
		}
		cal, err := report.Calibrate(rep, window)
		if err != nil {
			return fmt.Errorf("%s: %v", dir, err)
		}
		cals = append(cals, cal)
	}
	cal, err := report.MergeCalibrations(cals)
	if err != nil {
		return err
	}
	var md bytes.Buffer
	report.WriteCalibration(&md, cal)
	if len(dirs) > 1 {
		fmt.Fprintf(&md, "Runs counted together: %s\n", strings.Join(dirs, ", "))
	}
	js, err := json.MarshalIndent(cal, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dirs[0], "calibration.md"), md.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dirs[0], "calibration.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	_, err = stdout.Write(md.Bytes())
	return err
}
