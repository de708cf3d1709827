package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/bisect"
	"github.com/lnbench/lnbench/internal/testsupport"
)

// lndClone is a git clone of a fake LND tree: a release tag and three
// commits after it, and a side branch merged in.
func lndClone(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	g := func(args ...string) { testsupport.Git(t, dir, args...) }
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g("init", "-q", "-b", "master")
	write("go.mod", "module github.com/lightningnetwork/lnd\n\ngo 1.23\n")
	write("lnd.go", "package lnd\n")
	g("add", "-A")
	g("commit", "-q", "-m", "release")
	g("tag", "v1")
	for i, msg := range []string{"one", "two", "three"} {
		write("lnd.go", "package lnd\n"+strings.Repeat("//\n", i+1))
		g("commit", "-q", "-am", msg)
	}
	g("checkout", "-q", "-b", "side", "v1")
	write("side.go", "package lnd\n")
	g("add", "side.go")
	g("commit", "-q", "-m", "side work")
	g("checkout", "-q", "master")
	g("merge", "-q", "--no-ff", "-m", "merge side", "side")
	return dir
}

// Bisect's bad input is refused in one line before anything is built or
// started: no folder of the bisect exists afterwards.
func TestBisectRefusesBadInputBeforeAnything(t *testing.T) {
	clone := lndClone(t)
	arts := t.TempDir()
	notClone := t.TempDir()
	node := "lnd@src:" + clone
	two := filepath.Join(t.TempDir(), "two.yml")
	os.WriteFile(two, []byte("name: Two\ntopology: AlicePaysBob\nnodes:\n  - lnd@src:"+clone+"\n  - lnd@v0.21.0-beta\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--node", node, "--good", "v1"}, "bisect needs both ends"},
		{[]string{"--node", node, "--good", "v9", "--bad", "HEAD"}, `--good: revision "v9": no such commit`},
		{[]string{"--node", node, "--good", "v1", "--bad", "nope"}, `--bad: revision "nope": no such commit`},
		{[]string{"--node", node, "--good", "HEAD", "--bad", "v1"}, "is not an ancestor of --bad"},
		{[]string{"--node", node, "--good", "side", "--bad", "HEAD"}, "not on --bad"},
		{[]string{"--node", node, "--good", "v1", "--bad", "v1"}, "the same commit"},
		{[]string{"--node", "lnd@src:" + notClone, "--good", "v1", "--bad", "HEAD"}, "is not a git clone"},
		{[]string{"--node", "lnd@v0.21.0-beta", "--good", "v1", "--bad", "HEAD"}, "bisect builds revisions of a git clone"},
		{[]string{"--node", node + "#v1", "--good", "v1", "--bad", "HEAD"}, "give the clone without #v1"},
		{[]string{"--node", node, "--node", node, "--good", "v1", "--bad", "HEAD"}, "--node given 2 times"},
		{[]string{two, "--good", "v1", "--bad", "HEAD"}, "the scenario names 2 node specs: bisect takes one"},
		{[]string{"--node", node, "--good", "v1", "--bad", "HEAD", "--param", "Concurrency=10,20"}, "the scenario has 2 cases; bisect measures one: give --case"},
		{[]string{"--node", node, "--good", "v1", "--bad", "HEAD", "--param", "Concurrency=10,20", "--case", "Concurrency=30"}, `--case "Concurrency=30" matches none`},
		{[]string{"--node", node, "--good", "v1", "--bad", "HEAD", "--metric", "p99"}, `--metric "p99"`},
		{[]string{"--node", node, "--good", "v1", "--bad", "HEAD", "--param", "Rate=20", "--case", "Concurrency=20", "--metric", "time"}, "is open-loop"},
		{[]string{"--node", node, "--good", "v1", "--bad", "HEAD", "--threshold", "150%"}, `--threshold "150%"`},
		{[]string{"--node", node, "--good", "v1", "--bad", "HEAD", "--max-launches", "2"}, "--max-launches 2"},
		{[]string{"--node", node, "--good", "v1", "--bad", "HEAD", "--snapshots", "--fresh-network"}, "--fresh-network and --snapshots: keep one"},
	} {
		var out, errb bytes.Buffer
		args := append(append([]string{"bisect"}, tc.args...), "--artifacts", arts, "--backend", "local")
		err := Run(context.Background(), &out, &errb, args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: the error is not one line: %q", tc.args, err)
		}
	}
	if entries, _ := os.ReadDir(arts); len(entries) != 0 {
		t.Errorf("refused bisects left %d entries in the artifacts folder", len(entries))
	}
}

func TestBisectSaysADirtyCloneIsNotBuilt(t *testing.T) {
	clone := lndClone(t)
	os.WriteFile(filepath.Join(clone, "lnd.go"), []byte("package lnd\n// edited\n"), 0o644)
	var errb bytes.Buffer
	f := bisectFlags{good: "v1", bad: "HEAD", metric: "time", caseSel: "Concurrency=20"}
	f.run.nodes = []string{"lnd@src:" + clone}
	f.run.artifacts = t.TempDir()
	f.run.startTimeout = 1
	setup, err := planBisect(context.Background(), nil, f, &errb)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errb.String(), "uncommitted changes") {
		t.Errorf("no word of the dirty clone: %q", errb.String())
	}
	// v1, one, two, three and the merge: first-parent, oldest first.
	var subjects []string
	for _, c := range setup.revs {
		subjects = append(subjects, c.Subject)
	}
	if strings.Join(subjects, ",") != "release,one,two,three,merge side" {
		t.Errorf("range %v", subjects)
	}
	if setup.caseKey == "" || !strings.Contains(setup.out, "bisect-") || setup.metric != "time" {
		t.Errorf("case %q out %q metric %q", setup.caseKey, setup.out, setup.metric)
	}
	// Steps start with whole A B B A blocks unless the user sets LaunchCount.
	if got := setup.scenario.Job.LaunchCount; got != bisectStartLaunches {
		t.Errorf("a step starts with %d launches, want %d", got, bisectStartLaunches)
	}
	f.run.jobs = []string{"LaunchCount=2"}
	if setup, err = planBisect(context.Background(), nil, f, &errb); err != nil || setup.scenario.Job.LaunchCount != 2 {
		t.Errorf("--job LaunchCount=2: %d launches, %v", setup.scenario.Job.LaunchCount, err)
	}
	f.run.jobs = nil
	// An open-loop case is compared on its primary metric, p50 latency.
	f.run.params, f.metric = []string{"Rate=20"}, ""
	if setup, err = planBisect(context.Background(), nil, f, &errb); err != nil || setup.metric != "p50" {
		t.Errorf("open loop: metric %q, %v", setup.metric, err)
	}
}

func TestBisectJournalBelongsToItsInputs(t *testing.T) {
	out := t.TempDir()
	in := bisectInputs{Spec: "lnd@src:/x", Good: "aaa", Bad: "bbb", Case: "Concurrency=20", Scenario: "S"}
	set := bisectSettings{Metric: "time", Effect: 0.05, Design: "duet", Order: "abba", MaxLaunches: 12, Launches: 4}
	j, err := loadJournal(out, in, set)
	if err != nil || j.Ends != nil {
		t.Fatalf("a new folder: %+v %v", j, err)
	}
	j.Builds = 3
	if err := saveJournal(out, in, set, j); err != nil {
		t.Fatal(err)
	}
	back, err := loadJournal(out, in, set)
	if err != nil || back.Builds != 3 {
		t.Fatalf("read back %+v %v", back, err)
	}
	other := in
	other.Case = "Concurrency=40"
	if _, err := loadJournal(out, other, set); err == nil || !strings.Contains(err.Error(), "holds a bisect of other inputs") {
		t.Fatalf("other inputs: %v", err)
	}
}

// A resume that asks other settings than the journal was made at is
// refused in one line naming the setting, what the journal used and the
// fix: one case per setting.
func TestBisectResumeRefusesOtherSettings(t *testing.T) {
	in := bisectInputs{Spec: "lnd@src:/x", Good: "aaa", Bad: "bbb", Case: "Concurrency=20", Scenario: "S"}
	base := bisectSettings{Metric: "time", Threshold: 0, Effect: 0.05, Design: "duet", Order: "abba", MaxLaunches: 12, Launches: 4, CPUs: "auto", Freeze: "false"}
	for _, tc := range []struct {
		name   string
		change func(*bisectSettings)
		want   string
	}{
		{"metric", func(s *bisectSettings) { s.Metric = "p50" }, "was made with --metric time; this command asks --metric p50: rerun with --metric time, or give a new --out"},
		{"threshold given", func(s *bisectSettings) { s.Threshold = 0.05 }, "was made without --threshold; this command asks --threshold 5%: rerun without --threshold, or give a new --out"},
		{"effect", func(s *bisectSettings) { s.Effect = 0.03 }, "was made with --effect 5%; this command asks --effect 3%: rerun with --effect 5%, or give a new --out"},
		{"design", func(s *bisectSettings) { s.Design = "interleaved" }, "was made with --design duet; this command asks --design interleaved: rerun with --design duet, or give a new --out"},
		{"order", func(s *bisectSettings) { s.Order = "shuffled" }, "was made with --order abba; this command asks --order shuffled: rerun with --order abba, or give a new --out"},
		{"cap", func(s *bisectSettings) { s.MaxLaunches = 20 }, "was made with --max-launches 12; this command asks --max-launches 20: rerun with --max-launches 12, or give a new --out"},
		{"launches", func(s *bisectSettings) { s.Launches = 6 }, "was made with --job LaunchCount=4; this command asks --job LaunchCount=6: rerun with --job LaunchCount=4, or give a new --out"},
		{"duet cpus", func(s *bisectSettings) { s.CPUs = "shared" }, "was made with --duet-cpus auto; this command asks --duet-cpus shared: rerun with --duet-cpus auto, or give a new --out"},
		{"freeze", func(s *bisectSettings) { s.Freeze = "true" }, "was made with --freeze-idle=false; this command asks --freeze-idle=true: rerun with --freeze-idle=false, or give a new --out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			if err := saveJournal(out, in, base, bisect.Journal{Builds: 2}); err != nil {
				t.Fatal(err)
			}
			asks := base
			tc.change(&asks)
			_, err := loadJournal(out, in, asks)
			if err == nil || !strings.Contains(err.Error(), "the journal in "+out+" "+tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v\nwant one line with %q", err, tc.want)
			}
		})
	}
	// The threshold the other way round: the journal had one.
	out := t.TempDir()
	with := base
	with.Threshold = 0.1
	if err := saveJournal(out, in, with, bisect.Journal{}); err != nil {
		t.Fatal(err)
	}
	if _, err := loadJournal(out, in, base); err == nil || !strings.Contains(err.Error(), "was made with --threshold 10%; this command asks no --threshold: rerun with --threshold 10%") {
		t.Fatalf("threshold dropped: %v", err)
	}
	// A journal older than the CPU and freeze settings matches what is asked.
	older := base
	older.CPUs, older.Freeze = "", ""
	if err := saveJournal(out, in, older, bisect.Journal{}); err != nil {
		t.Fatal(err)
	}
	if _, err := loadJournal(out, in, base); err != nil {
		t.Fatalf("a journal without cpus and freeze_idle: %v", err)
	}
	// A journal without settings (an older lnbench) cannot be matched.
	os.WriteFile(filepath.Join(out, bisectJournalFile), []byte(`{"inputs":{"spec":"lnd@src:/x","good":"aaa","bad":"bbb","case":"Concurrency=20","scenario":"S","metric":"time"},"journal":{"builds":1}}`), 0o644)
	if _, err := loadJournal(out, in, base); err == nil || !strings.Contains(err.Error(), "records no settings") {
		t.Fatalf("journal without settings: %v", err)
	}
}

// The settings a bisect records are the ones its runs use: the
// scenario's compare block after the flags, the cap, the first launches.
func TestBisectSettingsOfThePlan(t *testing.T) {
	clone := lndClone(t)
	f := bisectFlags{good: "v1", bad: "HEAD", caseSel: "Concurrency=20", threshold: "8%"}
	f.run.nodes = []string{"lnd@src:" + clone}
	f.run.artifacts = t.TempDir()
	f.run.startTimeout = 1
	f.run.compare = compareFlags{effect: "3%", design: "interleaved", order: "shuffled", maxLaunches: 10}
	setup, err := planBisect(context.Background(), nil, f, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := bisectSettings{Metric: "time", Threshold: 0.08, Effect: 0.03, Design: "interleaved", Order: "shuffled", MaxLaunches: 10, Launches: bisectStartLaunches,
		CPUs: "auto", Freeze: "true"}
	if got := settingsOf(setup); got != want {
		t.Errorf("settings %+v, want %+v", got, want)
	}
}

func TestBisectQuotingAndThreshold(t *testing.T) {
	for in, want := range map[string]string{"HEAD": "HEAD", "HEAD~3": "'HEAD~3'", "it's": `'it'\''s'`, "": "''"} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]float64{"": 0, "5%": 0.05, "0.1": 0.1} {
		if got, err := parseThreshold(in); err != nil || got != want {
			t.Errorf("parseThreshold(%q) = %g, %v", in, got, err)
		}
	}
}

// bisect --help says what bisect does with the flags it shares with run.
func TestBisectHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if err := Run(context.Background(), &out, &errb, []string{"bisect", "--help"}); err != nil {
		t.Fatal(err)
	}
	help := strings.Join(strings.Fields(out.String()+errb.String()), " ")
	for _, want := range []string{
		"the margin half the ends' measured effect on the log scale",
		"--effect sets only the ends' \"same\"",
		"Each look tests at 0.05 split over a run's looks (99% intervals with the default 4 to 12 launches)",
		"--metric, --threshold, --effect, --design, --order, --max-launches or LaunchCount than the journal's is refused",
		fmt.Sprintf("(0 = %d)", defaultBisectLaunches),
	} {
		if !strings.Contains(help, want) {
			t.Errorf("bisect --help lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(help, "(0 = 20)") {
		t.Errorf("bisect --help gives run's cap default:\n%s", out.String())
	}
}
