package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/bisect"
	"github.com/lnbench/lnbench/gitrev"
	"github.com/lnbench/lnbench/nodespec"
	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/scenario"
)

type bisectFlags struct {
	run       runFlags
	good, bad string
	caseSel   string
	metric    string
	threshold string
	out       string
}

func bisectCmd(stdout, stderr io.Writer) *cobra.Command {
	var f bisectFlags
	cmd := &cobra.Command{
		Use:   "bisect [scenario.yml] --node IMPL@src:CLONE --good REV --bad REV",
		Short: "Find the commit that made a node slower (or faster), with a statistical verdict at every step",
		Long: "Bisect measures the bad revision against the good one in the verdict design (duet by\n" +
			"default: launches as the unit, drift shared), adding launch rounds while the verdict is not yet\n" +
			"known, up to --max-launches. With no difference larger than the threshold it stops and names\n" +
			"no commit. Otherwise it searches the first-parent range: each step measures the midpoint\n" +
			"against the two ends it is being placed between and places it like good or like bad (its\n" +
			"interval within a margin of an end, the margin half the ends' measured effect on the log\n" +
			"scale, or different from the other end), between (different from both: both halves are\n" +
			"searched), or not yet known at the cap (then toward the nearer end, and it says so). --effect\n" +
			"sets only the ends' \"same\". Each look tests at 0.05 split over a run's looks (99% intervals\n" +
			"with the default 4 to 12 launches); bisect.md labels every interval at its level and states\n" +
			"the error rate over the steps. Revisions that do not build or run are skipped.\n\n" +
			"Builds are of committed content (src:CLONE#REV), cached by commit. Each step is an artifacts\n" +
			"folder `lnbench report` reads; bisect.md, bisect.csv, bisect.json and a plot go into --out.\n" +
			"Ctrl-C keeps every finished step: the same command again resumes. A resume with another\n" +
			"--metric, --threshold, --effect, --design, --order, --max-launches or LaunchCount than the\n" +
			"journal's is refused, naming the setting.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.run.noteFreshSet(cmd)
			return runBisect(cmd, stdout, stderr, args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.good, "good", "", "a revision without the change (commit, tag or branch)")
	fl.StringVar(&f.bad, "bad", "", "a later revision with it (commit, tag or branch; HEAD works)")
	fl.StringVar(&f.caseSel, "case", "", "the case to measure when the scenario has several: Name=value[/Name=value…], e.g. Concurrency=20")
	fl.StringVar(&f.metric, "metric", "", "what is compared: time (mean iteration time, i.e. payments/s; closed loop's default) or p50 (median latency; open loop's default)")
	fl.StringVar(&f.threshold, "threshold", "", "smallest change worth a search, e.g. 5% (default: any change the good-against-bad run establishes)")
	fl.StringVar(&f.out, "out", "", "folder of the bisect: its journal, reports and every step's artifacts (default: <artifacts>/bisect-<scenario>-<good>-<bad>)")
	fl.StringArrayVar(&f.run.params, "param", nil, "override a param: Name=v1,v2 (repeatable)")
	fl.StringArrayVar(&f.run.jobs, "job", nil, "override a job setting: Name=value (repeatable)")
	addBackendFlag(fl, &f.run)
	fl.BoolVar(&f.run.reuse, "reuse-network", false, "run cases that share a topology on one network instead of a fresh one each")
	addNetworkFlags(fl, &f.run)
	addSnapshotFlags(fl, &f.run)
	addCompareFlags(fl, &f.run.compare)
	// run's words for these do not fit bisect: every run is until known,
	// capped at 12, and the effect decides only the ends' "same".
	fl.Lookup("max-launches").Usage = fmt.Sprintf("cap of every run's launch rounds per revision while its verdict is not yet known (0 = %d)", defaultBisectLaunches)
	fl.Lookup("effect").Usage = fmt.Sprintf("the ends' \"same\": no change between good and bad larger than this, e.g. 3%% (default %g%%); a step's margin is half the ends' measured effect instead", 100*scenario.DefaultEffect)
	fl.Lookup("until-known").Usage = "always on in bisect: every run adds launch rounds until its verdict is known or --max-launches ran"
	return cmd
}

// bisectSetup is what a bisect checked before anything is built: the
// clone's spec, the range, the one case and where it all goes.
type bisectSetup struct {
	spec      nodespec.Spec // the clone, no revision
	revs      []gitrev.Commit
	scenario  scenario.Scenario
	caseKey   string
	threshold float64
	metric    string // report.MetricTime or MetricP50
	out       string
	// maxLaunches caps a step's launch rounds while its verdict is not
	// yet known (--max-launches).
	maxLaunches int
}

// bisectStartLaunches is how many launch rounds a bisect run starts with
// when the scenario does not set LaunchCount: one whole A B B A block per
// pair, twice over, so the first look at the verdicts (paired t with 3
// degrees of freedom) can already place the large effects bisect looks for.
// Starting at 1 made the first look one that could never decide, and it
// still took its share of α among the looks.
const bisectStartLaunches = 4

// defaultBisectLaunches is a step's cap: three times the rounds it starts with.
const defaultBisectLaunches = 3 * bisectStartLaunches

// planBisect checks every input and refuses in one line, before anything
// is built or started.
func planBisect(ctx context.Context, args []string, f bisectFlags, stderr io.Writer) (bisectSetup, error) {
	var b bisectSetup
	if f.good == "" || f.bad == "" {
		return b, errors.New("bisect needs both ends: --good REV (without the change) and --bad REV (with it)")
	}
	switch f.metric {
	case "", report.MetricP50:
		b.metric = f.metric
	case report.MetricTime, "payments/s":
		b.metric = report.MetricTime
	default:
		return b, fmt.Errorf("--metric %q: use time (mean iteration time, i.e. payments/s) or p50 (median payment latency)", f.metric)
	}
	if err := f.run.snapshotFlagsConflict(); err != nil {
		return b, err
	}
	var err error
	if b.threshold, err = parseThreshold(f.threshold); err != nil {
		return b, err
	}
	b.maxLaunches = f.run.compare.maxLaunches
	if b.maxLaunches == 0 {
		b.maxLaunches = defaultBisectLaunches
	}
	if len(f.run.nodes) > 1 {
		return b, fmt.Errorf("--node given %d times: bisect takes one spec, a clone (--node lnd@src:../lnd), and the revisions with --good and --bad", len(f.run.nodes))
	}
	s, err := loadScenario(args, f.run)
	if err != nil {
		return b, err
	}
	if !s.LaunchCountSet && !jobFlagSets(f.run.jobs, "LaunchCount") && !s.Job.Timed() {
		s.Job.LaunchCount = bisectStartLaunches
	}
	if b.maxLaunches < s.Job.LaunchCount {
		return b, fmt.Errorf("--max-launches %d: use at least %d, the launch rounds a step starts with (job.LaunchCount)", b.maxLaunches, s.Job.LaunchCount)
	}
	specs := s.Specs()
	if len(specs) != 1 {
		return b, fmt.Errorf("the scenario names %d node specs: bisect takes one; give it with --node IMPL@src:CLONE", len(specs))
	}
	sp := specs[0]
	switch {
	case !sp.IsSource():
		return b, fmt.Errorf("node spec %s: bisect builds revisions of a git clone; use --node %s@src:PATH (a clone of the node's repository)", sp.Build, sp.Implementation())
	case sp.Revision() != "":
		return b, fmt.Errorf("node spec %s: give the clone without #%s; the revisions are --good and --bad", sp.Build, sp.Revision())
	}
	b.spec = sp
	clone := sp.SourceDir()
	good, err := gitrev.Resolve(ctx, clone, f.good)
	if err != nil {
		return b, fmt.Errorf("--good: %v", err)
	}
	bad, err := gitrev.Resolve(ctx, clone, f.bad)
	if err != nil {
		return b, fmt.Errorf("--bad: %v", err)
	}
	between, err := gitrev.FirstParent(ctx, clone, good, bad)
	if err != nil {
		return b, err
	}
	b.revs = append([]gitrev.Commit{good}, between...)
	if gitrev.Dirty(ctx, clone) {
		fmt.Fprintf(stderr, "bisect: %s has uncommitted changes; every revision is built from its committed content, without them\n", clone)
	}
	if b.scenario, b.caseKey, b.metric, err = oneCase(s, f.caseSel, b.metric); err != nil {
		return b, err
	}
	b.out = f.out
	if b.out == "" {
		b.out = filepath.Join(f.run.artifacts, fmt.Sprintf("bisect-%s-%s-%s", s.Name, good.Short, bad.Short))
	}
	return b, nil
}

// jobFlagSets tells whether a --job flag sets the job setting name.
func jobFlagSets(jobs []string, name string) bool {
	for _, j := range jobs {
		if k, _, _ := strings.Cut(j, "="); strings.TrimSpace(k) == name {
			return true
		}
	}
	return false
}

// parseThreshold reads "5%" or "0.05"; "" is 0 (the run's MDE).
func parseThreshold(text string) (float64, error) {
	if text == "" {
		return 0, nil
	}
	pct := strings.HasSuffix(text, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(text, "%"), 64)
	if pct {
		v /= 100
	}
	if err != nil || !(v > 0 && v < 1) {
		return 0, fmt.Errorf("--threshold %q: give a relative change between 0 and 100%%, e.g. 5%% or 0.05", text)
	}
	return v, nil
}

// oneCase narrows s to the case sel names (Name=value parts), or its
// only case; the key is the case's id, as every step's report names it.
// The metric defaults to the case's primary: time for a closed loop, p50
// for an open loop (whose iteration time is its schedule's).
func oneCase(s scenario.Scenario, sel, metric string) (scenario.Scenario, string, string, error) {
	cases := s.Cases()
	var ids []string
	for _, c := range cases {
		ids = append(ids, c.ID())
	}
	var match []scenario.Case
	for _, c := range cases {
		if caseMatches(c, sel) {
			match = append(match, c)
		}
	}
	switch {
	case len(match) == 0:
		return s, "", "", fmt.Errorf("--case %q matches none of the scenario's cases: %s", sel, strings.Join(ids, ", "))
	case len(match) > 1 && sel == "":
		return s, "", "", fmt.Errorf("the scenario has %d cases; bisect measures one: give --case, e.g. --case %s (cases: %s)", len(match), ids[0], strings.Join(ids, ", "))
	case len(match) > 1:
		return s, "", "", fmt.Errorf("--case %q matches %d cases (%s); name more params", sel, len(match), strings.Join(ids, ", "))
	}
	open := match[0].Workload.OpenLoop()
	switch {
	case metric == "" && open:
		metric = report.MetricP50
	case metric == "":
		metric = report.MetricTime
	case metric == report.MetricTime && open:
		return s, "", "", fmt.Errorf("--metric time: case %s is open-loop, so its iteration time is the schedule's; use --metric p50 (its default)", match[0].ID())
	}
	var ps []scenario.Param
	for _, v := range match[0].Values {
		ps = append(ps, scenario.Param{Name: v.Name, Values: []string{v.Value}})
	}
	return s.Override(ps), match[0].ID(), metric, nil
}

func caseMatches(c scenario.Case, sel string) bool {
	if sel == "" {
		return true
	}
	for _, part := range strings.Split(sel, "/") {
		name, value, ok := strings.Cut(part, "=")
		if !ok {
			return false
		}
		if v, found := c.Get(strings.TrimSpace(name)); !found || v != strings.TrimSpace(value) {
			return false
		}
	}
	return true
}

// bisectState is the journal file: the inputs it belongs to, the
// settings its runs were measured and decided at, and every finished
// measurement.
type bisectState struct {
	Inputs   bisectInputs    `json:"inputs"`
	Settings *bisectSettings `json:"settings,omitempty"`
	Journal  bisect.Journal  `json:"journal"`
}

// bisectInputs are what make two bisect commands the same search.
type bisectInputs struct {
	Spec     string `json:"spec"`
	Good     string `json:"good"`
	Bad      string `json:"bad"`
	Case     string `json:"case"`
	Scenario string `json:"scenario"`
}

// bisectSettings are how every run of a bisect is measured and decided.
// A resumed bisect must ask the same: steps measured at another metric,
// effect, design, order, cap, first launch count (which sets the looks,
// hence each look's alpha), threshold, duet CPU sharing or freezing would
// be mixed with the journal's (shared and split duets, frozen and running
// twins read a CPU-bound change at different sizes: docs/measured.md).
type bisectSettings struct {
	Metric      string  `json:"metric"`
	Threshold   float64 `json:"threshold"` // 0: none
	Effect      float64 `json:"effect"`
	Design      string  `json:"design"`
	Order       string  `json:"order"`
	MaxLaunches int     `json:"max_launches"`
	Launches    int     `json:"launches"` // launch rounds a run starts with (job.LaunchCount)
	// CPUs is compare.cpus (--duet-cpus), "auto" when unset; Freeze is
	// "true" or "false" (--freeze-idle). "" in a journal older than them
	// matches what is asked.
	CPUs   string `json:"cpus,omitempty"`
	Freeze string `json:"freeze_idle,omitempty"`
}

// settingsOf are the settings a planned bisect runs at.
func settingsOf(b bisectSetup) bisectSettings {
	s := b.scenario
	return bisectSettings{Metric: b.metric, Threshold: b.threshold, Effect: s.Compare.EffectOrDefault(), Design: s.Design(),
		Order: s.Compare.OrderOrDefault(), MaxLaunches: b.maxLaunches, Launches: s.Job.LaunchCount,
		CPUs: cmp.Or(s.Compare.CPUs, "auto"), Freeze: strconv.FormatBool(bisectFreezes(s))}
}

// bisectFreezes is Scenario.Freezes for the runs of a bisect, which
// always compare two builds (the plan's scenario holds one spec).
func bisectFreezes(s scenario.Scenario) bool {
	two := s
	two.Nodes = []nodespec.Spec{{Label: "a"}, {Label: "b"}}
	return two.Freezes()
}

// flags are the settings as the flags that give them ("" for no
// --threshold), in the order a mismatch is reported.
func (s bisectSettings) flags() []string {
	pct := func(v float64) string { return fmt.Sprintf("%.4g%%", 100*v) }
	threshold := ""
	if s.Threshold > 0 {
		threshold = "--threshold " + pct(s.Threshold)
	}
	return []string{"--metric " + s.Metric, threshold, "--effect " + pct(s.Effect), "--design " + s.Design,
		"--order " + s.Order, "--max-launches " + strconv.Itoa(s.MaxLaunches), "--job LaunchCount=" + strconv.Itoa(s.Launches),
		"--duet-cpus " + s.CPUs, "--freeze-idle=" + s.Freeze}
}

// settingMismatch is the one line refusing a resume at other settings.
func settingMismatch(out, was, asks string) error {
	made, rerun, asked := "with "+was, "with "+was, asks
	if was == "" {
		made, rerun = "without --threshold", "without --threshold"
	}
	if asks == "" {
		asked = "no --threshold"
	}
	return fmt.Errorf("the journal in %s was made %s; this command asks %s: rerun %s, or give a new --out", out, made, asked, rerun)
}

const bisectJournalFile = "journal.json"

// loadJournal reads the journal of an earlier run of the same bisect in
// out; one of other inputs is refused rather than mixed in, and one made
// at other settings is refused in one line naming the setting and its fix.
func loadJournal(out string, in bisectInputs, set bisectSettings) (bisect.Journal, error) {
	path := filepath.Join(out, bisectJournalFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return bisect.Journal{}, nil
	}
	if err != nil {
		return bisect.Journal{}, err
	}
	var st bisectState
	if err := json.Unmarshal(data, &st); err != nil {
		return bisect.Journal{}, fmt.Errorf("%s: %v; remove it to start over", path, err)
	}
	if st.Inputs != in {
		return bisect.Journal{}, fmt.Errorf("%s holds a bisect of other inputs (%s %s..%s, case %s); give another --out, or remove the folder to start over", out, st.Inputs.Spec, gitrev.ShortID(st.Inputs.Good), gitrev.ShortID(st.Inputs.Bad), st.Inputs.Case)
	}
	if st.Settings == nil {
		return bisect.Journal{}, fmt.Errorf("the journal in %s records no settings (an older lnbench made it), so its steps cannot be told to match this command's; give a new --out, or remove %s to start over", out, path)
	}
	old := *st.Settings
	old.CPUs, old.Freeze = cmp.Or(old.CPUs, set.CPUs), cmp.Or(old.Freeze, set.Freeze)
	was, asks := old.flags(), set.flags()
	for i := range was {
		if was[i] != asks[i] {
			return bisect.Journal{}, settingMismatch(out, was[i], asks[i])
		}
	}
	return st.Journal, nil
}

func saveJournal(out string, in bisectInputs, set bisectSettings, j bisect.Journal) error {
	data, err := json.MarshalIndent(bisectState{Inputs: in, Settings: &set, Journal: j}, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(out, bisectJournalFile+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(out, bisectJournalFile))
}
