package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/bisect"
	"github.com/lnbench/lnbench/bisect/lab"
	"github.com/lnbench/lnbench/runner"
	"github.com/lnbench/lnbench/scenario"
)

// runBisect checks, searches and reports.
func runBisect(cmd *cobra.Command, stdout, stderr io.Writer, args []string, f bisectFlags) error {
	ctx := cmd.Context()
	setup, err := planBisect(ctx, args, f, stderr)
	if err != nil {
		return err
	}
	images, err := findImages(f.run.images)
	if err != nil {
		return err
	}
	in := bisectInputs{Spec: setup.spec.Text(), Good: setup.revs[0].ID, Bad: setup.revs[len(setup.revs)-1].ID,
		Case: setup.caseKey, Scenario: setup.scenario.Name}
	set := settingsOf(setup)
	if err := os.MkdirAll(setup.out, 0o755); err != nil {
		return fmt.Errorf("--out %s: %v", setup.out, err)
	}
	j, err := loadJournal(setup.out, in, set)
	if err != nil {
		return err
	}
	if j.Ends != nil {
		fmt.Fprintf(stderr, "bisect: resuming from %s (%d step(s) measured)\n", filepath.Join(setup.out, bisectJournalFile), len(j.Steps))
	}
	fmt.Fprintf(stderr, "bisect: %d revisions from good %s to bad %s on %s, case %s; folder %s\n",
		len(setup.revs), setup.revs[0], setup.revs[len(setup.revs)-1], setup.spec.SourceDir(), setup.caseKey, setup.out)
	l := &lab.Lab{Spec: setup.spec, Scenario: setup.scenario, Metric: setup.metric, CaseKey: setup.caseKey, Out: setup.out,
		MaxLaunches: setup.maxLaunches, Cache: f.run.cache, Images: images, Stderr: stderr,
		Run: func(ctx context.Context, s scenario.Scenario, dir string, tweak func(*runner.Options)) (string, error) {
			rf := f.run
			rf.artifacts, rf.yes = dir, true
			run, err := executeScenario(cmd, io.Discard, stderr, s, rf, tweak)
			return run.Dir, err
		}}
	start, before := time.Now(), j.Seconds
	save := func(j bisect.Journal) error {
		j.Seconds = before + time.Since(start).Seconds()
		return saveJournal(setup.out, in, set, j)
	}
	res, serr := bisect.Search(ctx, setup.revs, l, &j, bisect.Options{Threshold: setup.threshold, Log: stderr, Save: save})
	total := time.Duration((before + time.Since(start).Seconds()) * float64(time.Second)).Round(time.Second)
	res.Elapsed = total.String()
	if before > 0 {
		res.Elapsed += fmt.Sprintf(" (this command %v)", time.Since(start).Round(time.Second))
	}
	if res.Ends.Good.ID == "" { // nothing measured: nothing to report
		return serr
	}
	rep := bisect.Report{Result: res, Clone: setup.spec.SourceDir(), Spec: setup.spec.Text(), Case: setup.caseKey, Metric: setup.metric,
		Scenario: setup.scenario.Name, Command: commandLine(), Interrupted: serr != nil}
	if werr := bisect.WriteAll(ctx, setup.out, rep, stderr); werr != nil {
		serr = errors.Join(serr, werr)
	}
	_ = bisect.WriteText(stdout, rep)
	abs, _ := filepath.Abs(setup.out)
	fmt.Fprintf(stdout, "bisect: %s\n", abs)
	if serr != nil && errors.Is(serr, context.Canceled) {
		return fmt.Errorf("interrupted; every finished step is kept in %s, and the same command resumes: %w", abs, context.Canceled)
	}
	return serr
}

// commandLine is how this bisect was started, for the report.
func commandLine() string {
	out := "lnbench"
	for _, a := range os.Args[1:] {
		out += " " + shellQuote(a)
	}
	return out
}

// shellQuote quotes an argument for a shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
