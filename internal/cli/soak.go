package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/flamegraph"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/result"
	"github.com/lnbench/lnbench/sampler"
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
	fl.StringVar(&f.backend, "backend", "auto", "auto, compose or local")
	fl.StringVar(&f.artifacts, "artifacts", "BenchmarkArtifacts", "folder that receives the run's folder")
	fl.StringVar(&f.cache, "cache", nodebuild.DefaultCacheDir(), "binary cache folder ($LNBENCH_CACHE)")
	fl.StringVar(&f.images, "images", "", "folder of node build modules")
	fl.DurationVar(&f.startTimeout, "start-timeout", 90*time.Second, "how long a node may take to start")
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

// writeSoak analyses the soak run on disk and writes soak.md and soak.json.
func writeSoak(stdout io.Writer, dir string, s scenario.Scenario) error {
	recs, err := result.ReadFile(filepath.Join(dir, "payments.jsonl"))
	if err != nil {
		return err
	}
	ws, _ := sampler.ReadIndex(dir)
	var windows [][2]time.Time
	for _, w := range ws {
		windows = append(windows, [2]time.Time{w.Start, w.End})
	}
	c := s.Cases()[0]
	soak := analysis.AnalyzeSoak(recs, c.ID(), c.Int("TotalPayments", 100), windows)
	var b strings.Builder
	fmt.Fprintf(&b, "# Soak: %s\n\nVerdict: **%s**\n\n", c.ID(), soak.Verdict)
	for _, n := range soak.Notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	b.WriteString("\n| iteration | +s | cumulative payments | payments/s | sampled |\n|---:|---:|---:|---:|---|\n")
	var t0 time.Time
	if len(soak.Points) > 0 {
		t0 = soak.Points[0].Start
	}
	for _, p := range soak.Points {
		fmt.Fprintf(&b, "| %d | %.0f | %d | %.1f | %v |\n", p.Iteration, p.Start.Sub(t0).Seconds(), p.Cumulative, p.PaymentsPerSec, p.Sampled)
	}
	b.WriteString(hotFrames(dir, ws))
	if err := os.WriteFile(filepath.Join(dir, "soak.md"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	data, _ := json.MarshalIndent(soak, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "soak.json"), data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "soak: %s; %s\nsoak report: %s\n", soak.Verdict, strings.Join(soak.Notes, "; "), filepath.Join(dir, "soak.md"))
	return nil
}

// hotFrames lists each actor's three hottest frames (self time) over all windows.
func hotFrames(dir string, ws []sampler.Window) string {
	var b strings.Builder
	for _, actor := range sampler.Actors(ws) {
		var all flamegraph.Folded
		for _, w := range ws {
			if w.Actor != actor {
				continue
			}
			if f, err := flamegraph.ReadFile(filepath.Join(dir, w.Folded)); err == nil {
				all = append(all, f...)
			}
		}
		fmt.Fprintf(&b, "\n## %s: hottest frames (self samples, all windows)\n\n", actor)
		for _, fs := range flamegraph.TopSelf(all, 3) {
			fmt.Fprintf(&b, "- `%s`: %d samples (%.1f%%)\n", fs.Name, fs.Samples, fs.Percent)
		}
	}
	return b.String()
}
