package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/stats"
)

// nodeParam is the case value that names the node spec when a run compares
// several: it leads the case's params and id.
const nodeParam = scenario.NodeParam

// DefaultAlpha and DefaultNoise are the significance level and noise
// threshold of `lnbench compare` and of the verdicts against a baseline.
const (
	DefaultAlpha = 0.05
	DefaultNoise = 0.02
)

// Verdicts of a case against the baseline spec.
const (
	VerdictBaseline   = "baseline"
	VerdictFaster     = "faster"
	VerdictSlower     = "slower"
	VerdictSame       = "same"          // the interval excludes any change larger than the effect
	VerdictUnknown    = "not yet known" // neither a change nor its absence shown: more launches settle it
	VerdictTooFew     = "too few samples"
	VerdictNoBaseline = "no baseline case"
	// VerdictNoise and VerdictUndecided are stats.Compare's outcomes, for
	// comparisons of single runs (sampling overhead).
	VerdictNoise     = "within noise"
	VerdictUndecided = "inconclusive"
)

// Levels a Ratio was tested at.
const (
	LevelLaunches   = "launches"   // one value per launch (fresh network): the unit the variance sits at
	LevelIterations = "iterations" // one launch a side: iterations, blind to launch-to-launch variance
)

// Ratio is BenchmarkDotNet's Ratio and RatioSD of a case against the same
// case on the baseline spec, with a verdict tested where the variance is:
// between launches.
type Ratio struct {
	// Of is the geometric mean over launch rounds of the case's mean
	// iteration time over the baseline's (Mean/Mean with one launch).
	Of float64 `json:"ratio"`
	// SD is the standard deviation of one iteration's ratio, propagated to
	// first order from the two relative standard deviations (see ratioOf).
	SD float64 `json:"ratio_sd"`
	// Low and High bound Of at 1-alpha (0 when there is no interval).
	Low  float64 `json:"ratio_low"`
	High float64 `json:"ratio_high"`
	// P is the two-sided p-value of the test at Level (1 on the baseline row).
	P float64 `json:"p"`
	// Level is what the test's units were; NBase and NNew how many per side.
	Level  string `json:"level,omitempty"`
	NBase  int    `json:"n_base"`
	NNew   int    `json:"n_new"`
	Paired bool   `json:"paired,omitempty"`
	// MDE is the smallest relative change this test detects with 80%
	// power at alpha (0 when unknown).
	MDE float64 `json:"mde"`
	// Effect is the relative change "same" excludes and LaunchesForEffect
	// (launches per spec, 0 when unknown) would detect with 80% power.
	Effect            float64 `json:"effect"`
	LaunchesForEffect int     `json:"launches_for_effect,omitempty"`
	Verdict           string  `json:"verdict"`
	// Change is the relative change of the median iteration time over all
	// launches (stats.Compare's), kept to flag a test that points the
	// other way.
	Change float64 `json:"median_change"`
	// Notes say how far to trust the verdict.
	Notes []string `json:"notes,omitempty"`
	// Unreliable says the case or its baseline ran on a busy machine
	// (cost.Outside.Busy); Notes carry BusyNote.
	Unreliable bool `json:"unreliable,omitempty"`
	// Metric is what was tested when it is not the mean iteration time:
	// MetricP50 for an open loop.
	Metric string `json:"metric,omitempty"`
	// Alpha is the level the test ran at (the interval is 1-Alpha).
	Alpha float64 `json:"alpha,omitempty"`
	// Duet is the duet-solo design's direction test (nil in other designs):
	// the verdict's direction and p come from it, Of and its interval
	// from the iterations each network ran alone.
	Duet *DuetHalf `json:"duet,omitempty"`
	// PHolm is P adjusted over the run's compared cases (Holm), when the
	// run compared more than one; a change verdict needs it below Alpha.
	PHolm float64 `json:"p_holm,omitempty"`
}

// nodeLabelOf is the spec a case ran: its Node param, else the run's only
// compared spec (the first of Nodes: pinned specs of mixed networks follow
// it), by label or, for runs written before specs had labels, by version.
func nodeLabelOf(r Report, params []scenario.Value) string {
	for _, v := range params {
		if v.Name == nodeParam {
			return v.Value
		}
	}
	if len(r.Nodes) > 0 {
		if r.Nodes[0].Label != "" {
			return r.Nodes[0].Label
		}
		return r.Nodes[0].Version
	}
	return r.Scenario.Node.Version
}

// MultiNode tells whether the run compares several node specs (its cases
// carry a Node param).
func (r Report) MultiNode() bool {
	return slices.ContainsFunc(r.Cases, func(c Row) bool {
		return slices.ContainsFunc(c.Params, func(v scenario.Value) bool { return v.Name == nodeParam })
	})
}

// BaselineLabel is the baseline spec's label when the run compares several
// specs and marks one; "" otherwise (no Ratio columns).
func (r Report) BaselineLabel() string {
	if !r.MultiNode() {
		return ""
	}
	for _, n := range r.Nodes {
		if n.Baseline && n.Label != "" {
			return n.Label
		}
	}
	return ""
}

// HasRatios tells whether the tables carry Ratio, RatioSD and Verdict.
func (r Report) HasRatios() bool { return r.BaselineLabel() != "" }

// caseParams reads a case id ("Node=a/Concurrency=10") back into its params.
func caseParams(id string) []scenario.Value {
	var out []scenario.Value
	for _, part := range strings.Split(id, "/") {
		if name, value, ok := strings.Cut(part, "="); ok {
			out = append(out, scenario.Value{Name: name, Value: value})
		}
	}
	return out
}

// withoutNode is a case's identity across specs: its params but Node.
func withoutNode(params []scenario.Value) string {
	var parts []string
	for _, v := range params {
		if v.Name != nodeParam {
			parts = append(parts, v.Name+"="+v.Value)
		}
	}
	return strings.Join(parts, "/")
}

// fillRatios sets every case's Ratio against the case with the same other
// params on the baseline spec; nothing without a baseline.
func fillRatios(r *Report) {
	label := r.BaselineLabel()
	if label == "" {
		return
	}
	cfg := r.verdictConfig()
	base := map[string]Row{}
	for _, c := range r.Cases {
		if c.Node == label {
			base[withoutNode(c.Params)] = c
		}
	}
	for i, c := range r.Cases {
		b, ok := base[withoutNode(c.Params)]
		switch {
		case c.Node == label:
			n := max(1, len(c.Launches)) // a case of one launch lists none
			r.Cases[i].Ratio = &Ratio{Of: 1, Low: 1, High: 1, Verdict: VerdictBaseline, P: 1, NBase: n, NNew: n,
				Level: LevelLaunches, Effect: cfg.effect}
		case ok:
			rt := ratioOf(c, b, cfg)
			r.Cases[i].Ratio = &rt
		}
	}
	holmAcrossCases(r.Cases, cfg)
}

// holmAcrossCases holds a run's change verdicts together at alpha: with
// several cases compared on launches, a faster or slower stands only when
// its p adjusted over them (Holm) is below alpha, so an A/A run of many
// cases calls any of them changed at most alpha of the time, not alpha per
// case. A verdict the adjustment takes back becomes not yet known and
// says why; "same" rests on each case's own interval and stays.
func holmAcrossCases(rows []Row, cfg verdictConfig) {
	var at []int
	var ps []float64
	for i, c := range rows {
		if rt := c.Ratio; rt != nil && rt.Verdict != VerdictBaseline && rt.Level == LevelLaunches && rt.Verdict != VerdictTooFew {
			at, ps = append(at, i), append(ps, rt.verdictP())
		}
	}
	if len(at) < 2 {
		return
	}
	for k, adj := range stats.Holm(ps) {
		rt := rows[at[k]].Ratio
		rt.PHolm = adj
		if (rt.Verdict == VerdictFaster || rt.Verdict == VerdictSlower) && !(adj < cfg.alpha) {
			rt.Notes = append(rt.Notes, fmt.Sprintf("%s alone (%s), but not over the %d cases compared (Holm-adjusted p=%.3f ≥ %g): not yet known",
				rt.Verdict, pText(rt.verdictP()), len(at), adj, cfg.alpha))
			rt.Verdict = VerdictUnknown
		}
	}
}

// verdictConfig is what a verdict is decided at.
type verdictConfig struct {
	alpha, noise float64
	effect       float64 // the "same" margin and the effect launch counts are suggested for
	design       string  // the run's design ("" for two separate runs): the spread a one-launch note assumes
	frozen       bool    // its waiting networks were frozen
	// separateRuns compares launches of two runs: their launch numbers
	// are no shared rounds, so the test is unpaired.
	separateRuns bool
}

// verdictConfig is the run's: alpha split over an until-known run's looks.
func (r Report) verdictConfig() verdictConfig {
	cfg := verdictConfig{alpha: r.Design.Alpha(DefaultAlpha), noise: DefaultNoise, effect: r.Scenario.Compare.EffectOrDefault()}
	if r.Design != nil {
		cfg.design, cfg.frozen = r.Design.Name, r.Design.Frozen
	}
	return cfg
}

// ciLabel names the interval column at the run's confidence level.
func ciLabel(alpha float64) string { return fmt.Sprintf("%.4g%% CI", 100*(1-alpha)) }

// maxSuggestedLaunches caps the launch count a note suggests.
const maxSuggestedLaunches = 100

// outcomeVerdicts names stats.Decide's outcomes as the tables do.
var outcomeVerdicts = map[stats.Outcome]string{stats.Lower: VerdictFaster, stats.Higher: VerdictSlower,
	stats.Same: VerdictSame, stats.NotYetKnown: VerdictUnknown}

// primaryMetric is what a case's verdict tests: the mean iteration time
// of a closed loop, whose payments start as the last ones end; the median
// latency of an open loop, whose iteration time is its schedule's
// (TotalPayments / Rate) whatever the node does.
func primaryMetric(c Row) string {
	if c.OfferedPerSec > 0 {
		return MetricP50
	}
	return MetricTime
}

// launchValue is the per-launch value of a metric.
func launchValue(metric string) func(analysis.Launch) float64 {
	if metric == MetricP50 {
		return func(l analysis.Launch) float64 { return l.P50Ms }
	}
	return func(l analysis.Launch) float64 { return l.MeanSeconds }
}

// iterationValues are a case's complete iterations' values of a metric.
func iterationValues(c Row, metric string) []float64 {
	var out []float64
	for _, it := range c.Iterations {
		if !it.Complete {
			continue
		}
		if metric == MetricP50 {
			out = append(out, it.P50Ms)
		} else {
			out = append(out, it.Seconds)
		}
	}
	return out
}

// typicalPairSD is PairSpread of the design, two separate runs counting
// as sequential launches: with one launch a side the run has no spread of
// its own, so the launch count a note suggests rests on this.
func typicalPairSD(design string, frozen bool) (float64, string) {
	sd, name := PairSpread(design, frozen)
	return sd, fmt.Sprintf("the %.1f%% launch-pair spread measured for %s", 100*sd, name)
}

// ratioOf compares case c with the baseline case b on the case's primary
// metric. The verdict's test takes one value per launch (its mean
// iteration time, or its median latency in an open loop): a paired t test
// of the per-round log ratios over the rounds both specs ran (A B B A …
// or shuffled rounds; a round missing on one side is dropped, the others
// stay paired), else Welch's; see stats.TestRatio for why. Iterations are
// never pooled across launches: launches differ by 3–10% while a launch's
// own standard error is ≈2% (docs/verdicts.md). With one launch a side
// the iterations give a ratio and an interval to look at, never a verdict
// of faster, slower or same: "not yet known", with the launch count that
// would tell.
//
//	RatioSD = Ratio · √((sd(c)/mean(c))² + (sd(b)/mean(b))²)
//
// over the iteration times: BenchmarkDotNet's RatioSD, how much one
// iteration's ratio spreads, not how precisely the ratio is known (that is
// the interval).
func ratioOf(c, b Row, cfg verdictConfig) Ratio { return metricRatioOf(c, b, primaryMetric(b), cfg) }

// metricRatioOf is ratioOf on the given metric.
func metricRatioOf(c, b Row, metric string, cfg verdictConfig) Ratio {
	out := Ratio{P: 1, Verdict: VerdictUnknown, Effect: cfg.effect, Alpha: cfg.alpha}
	if metric != MetricTime {
		out.Metric = metric
	}
	if b.Time.Mean > 0 && c.Time.Mean > 0 {
		out.SD = c.Time.Mean / b.Time.Mean * math.Hypot(c.Time.StdDev/c.Time.Mean, b.Time.StdDev/b.Time.Mean)
	}
	bs, cs := iterationValues(b, metric), iterationValues(c, metric)
	out.Change = stats.Compare(bs, cs, cfg.alpha, cfg.noise, true).Change

	if len(b.Launches) < 2 || len(c.Launches) < 2 {
		return oneLaunchRatio(out, bs, cs, len(b.Launches), len(c.Launches), cfg)
	}
	bv, cv, paired, dropped := launchValuesOf(b.Launches, c.Launches, launchValue(metric))
	if cfg.separateRuns {
		bv, cv, paired, dropped = unpairedValues(b.Launches, c.Launches, launchValue(metric))
	}
	if len(dropped) > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("launch round(s) %s dropped: a launch missing or incomplete on one side; the other %d rounds stay paired", roundList(dropped), len(bv)))
	}
	t := stats.TestRatio(bv, cv, paired, cfg.alpha)
	if !fillTest(&out, t, LevelLaunches) {
		return out
	}
	margin, shrunk := sameMargin(cfg)
	outcome := stats.Decide(t, cfg.noise, margin)
	if dt, ok := duetTest(b, c, metric, cfg); ok {
		outcome = twoStage(&out, t, dt, cfg)
	}
	out.Verdict = outcomeVerdicts[outcome]
	alone := ""
	if shrunk {
		alone = fmt.Sprintf(" in duet, at most %.1f%% each build alone (a CPU-bound change reads about %.0f%% of its size alone in duet: docs/measured.md)", 100*unshrink(t.Excluded()), 100*duetShrink)
	}
	switch outcome {
	case stats.Lower, stats.Higher:
		if shrunk {
			out.Notes = append(out.Notes, fmt.Sprintf("the ratio is the duet's: a CPU-bound change reads about %.0f%% of its size alone in duet (docs/measured.md); run --design sequential for the size alone", 100*duetShrink))
		} else if half := (t.High - t.Low) / 2; half < sessionSpread {
			out.Notes = append(out.Notes, fmt.Sprintf("±%.1f%% is this run's spread between launches; two runs of one change hours apart read %.0f points apart on the 2-core VM (docs/measured.md): run again before quoting the size", 100*half, 100*sessionSpread))
		}
	case stats.Same:
		out.Notes = append(out.Notes, fmt.Sprintf("same: no change larger than %.1f%%%s (%s %.3f–%.3f)", 100*t.Excluded(), alone, ciLabel(cfg.alpha), t.Low, t.High))
	default:
		out.Notes = append(out.Notes, fmt.Sprintf("not yet known: changes up to %.1f%%%s are not excluded (%s %.3f–%.3f)", 100*t.Excluded(), alone, ciLabel(cfg.alpha), t.Low, t.High))
	}
	n, ok := stats.Suggest(margin, t.SD, t.Paired, cfg.alpha, stats.DefaultPower, maxSuggestedLaunches)
	if ok {
		out.LaunchesForEffect = n
	}
	if out.Verdict != VerdictFaster && out.Verdict != VerdictSlower {
		if ok {
			out.Notes = append(out.Notes, fmt.Sprintf("%d launches per spec would detect a %g%% change (80%% power at this launch spread)", n, 100*cfg.effect))
		} else {
			out.Notes = append(out.Notes, fmt.Sprintf("more than %d launches per spec would be needed to detect a %g%% change at this launch spread: quiet the machine first", maxSuggestedLaunches, 100*cfg.effect))
		}
	}
	out.Notes = append(out.Notes, oppositeNote(out, cfg)...)
	return out
}

// DuetHalf is the direction test of the duet-solo design: the same test
// on the launches' duet iterations (every network of the round at once).
type DuetHalf struct {
	Of   float64 `json:"ratio"`
	Low  float64 `json:"ratio_low"`
	High float64 `json:"ratio_high"`
	P    float64 `json:"p"`
	MDE  float64 `json:"mde"`
}

// verdictP is the p the verdict's direction rests on: the duet half's in
// the duet-solo design, else the test's own.
func (r Ratio) verdictP() float64 {
	if r.Duet != nil {
		return r.Duet.P
	}
	return r.P
}

// duetTest tests the launches' duet iterations when both cases have them
// in at least two common rounds.
func duetTest(b, c Row, metric string, cfg verdictConfig) (stats.RatioTest, bool) {
	value := func(l analysis.Launch) float64 { return l.DuetMeanSeconds }
	if metric == MetricP50 {
		value = func(l analysis.Launch) float64 { return l.DuetP50Ms }
	}
	has := func(ls []analysis.Launch) bool {
		return len(ls) >= 2 && !slices.ContainsFunc(ls, func(l analysis.Launch) bool { return l.DuetIterations == 0 })
	}
	if !has(b.Launches) || !has(c.Launches) {
		return stats.RatioTest{}, false
	}
	bv, cv, paired, _ := launchValuesOf(b.Launches, c.Launches, value)
	dt := stats.TestRatio(bv, cv, paired, cfg.alpha)
	return dt, !math.IsNaN(dt.SE)
}

// twoStage decides the duet-solo design's verdict: the direction from the
// duet half, which shares every burst of outside load between the
// networks and so tells a change steadily, but reads a CPU-bound change
// small (the changed network slows its twin too); the size, and "same",
// from the solo half, each network alone as a user runs one build. A
// direction the solo interval contradicts is not yet known.
func twoStage(out *Ratio, solo, duet stats.RatioTest, cfg verdictConfig) stats.Outcome {
	out.Duet = &DuetHalf{Of: duet.Ratio, Low: duet.Low, High: duet.High, P: duet.P, MDE: duet.MDE}
	dir := stats.Decide(duet, cfg.noise, cfg.effect)
	size := stats.Decide(solo, cfg.noise, cfg.effect)
	out.Notes = append(out.Notes, fmt.Sprintf("size from the solo half (each network alone): %.3f (%s %.3f–%.3f); direction from the duet half (both networks at once): %.3f (%s %.3f–%.3f, %s)",
		solo.Ratio, ciLabel(cfg.alpha), solo.Low, solo.High, duet.Ratio, ciLabel(cfg.alpha), duet.Low, duet.High, pText(duet.P)))
	switch {
	case dir == stats.Higher && solo.High < 1, dir == stats.Lower && solo.Low > 1:
		out.Notes = append(out.Notes, "the halves disagree: the duet half points one way, the solo half's whole interval the other; not yet known")
		return stats.NotYetKnown
	case dir == stats.Higher || dir == stats.Lower:
		return dir
	case size == stats.Same:
		return stats.Same
	}
	return stats.NotYetKnown
}

// duetShrink is the share of a CPU-bound change's size alone that the duet
// design reads, on the log scale: the changed network takes CPU from its
// twin, and each runs at part of its load alone. Measured with a build
// that cost the payee ≈2.5 ms of CPU more per payment (AlicePaysBob,
// Concurrency 40): 1.118 and 1.107 in duet against 1.188 each build alone
// over 30 sequential rounds (0.65 and 0.59 on the log scale;
// docs/measured.md, "The size a user would see"), and 1.050 against 1.199
// in an earlier six-round pair (0.27; ../shared/notes/verdicts.md). A
// "same" must hold however CPU-bound the change, so the smallest reading
// is the one used.
const duetShrink = 0.27

// sessionSpread is how far apart two runs of one change read in the
// default design on different hours of one machine, beyond either run's
// interval: 1.069 (1.055–1.082) and 1.036 (1.009–1.065) for 4500 payee
// SHA-256 blocks at Concurrency 40 on the 2-core VM (docs/measured.md, "A
// 5% CPU change is sized to about ±3 points"). An interval narrower than
// that claims a precision that the next session may not repeat.
const sessionSpread = 0.03

// sameMargin is the interval "same" must lie within: the effect, except in
// duet, whose ratio of a CPU-bound change is shrunk, so a "same" there
// must exclude the effect each build alone would show.
func sameMargin(cfg verdictConfig) (margin float64, shrunk bool) {
	if cfg.design != DesignDuet {
		return cfg.effect, false
	}
	return math.Expm1(math.Log1p(cfg.effect) * duetShrink), true
}

// unshrink is a duet-read relative change as large as it may be alone.
func unshrink(change float64) float64 { return math.Expm1(math.Log1p(change) / duetShrink) }

// oneLaunchRatio fills a comparison with one launch on a side: the
// iterations give the ratio and an interval at the iteration level, but
// they cannot tell a change from the launch-to-launch variance (3–10% of
// the mean on a 2-core VM, against ≈2% within a launch), so the verdict is
// "not yet known" whatever they say, with the launch count that would
// tell at the spread measured for the design.
func oneLaunchRatio(out Ratio, bs, cs []float64, nb, nc int, cfg verdictConfig) Ratio {
	t := stats.TestRatio(bs, cs, false, cfg.alpha)
	if !fillTest(&out, t, LevelIterations) {
		return out
	}
	sd, why := typicalPairSD(cfg.design, cfg.frozen)
	size := max(cfg.effect, math.Expm1(math.Abs(math.Log(t.Ratio))))
	n, ok := stats.Suggest(size, sd, cfg.design != "", cfg.alpha, stats.DefaultPower, maxSuggestedLaunches)
	tell := fmt.Sprintf("more than %d launches per spec", maxSuggestedLaunches)
	if ok {
		out.LaunchesForEffect = n
		tell = fmt.Sprintf("%d launches per spec (LaunchCount=%d)", n, n)
	}
	out.Notes = append(out.Notes, fmt.Sprintf("%d+%d launch(es): not yet known; the iterations alone say %.3f (%s %.3f–%.3f, %s), but they ignore launch-to-launch variance (3–10%% of the mean on a 2-core VM, against ≈2%% within a launch); %s would detect a %.1f%% change at %s",
		max(1, nb), max(1, nc), t.Ratio, ciLabel(cfg.alpha), out.Low, out.High, pText(t.P), tell, 100*size, why))
	return out
}

// fillTest copies a test at level into out; false (the verdict too few
// samples, with a note) when the test has no interval.
func fillTest(out *Ratio, t stats.RatioTest, level string) bool {
	out.Level = level
	out.Of, out.P, out.NBase, out.NNew, out.Paired = t.Ratio, t.P, t.NBase, t.NNew, t.Paired
	if !math.IsNaN(t.Low) {
		out.Low, out.High = t.Low, t.High
	}
	if !math.IsNaN(t.MDE) {
		out.MDE = t.MDE
	}
	if math.IsNaN(t.SE) {
		out.Verdict = VerdictTooFew
		out.Notes = append(out.Notes, fmt.Sprintf("n=%d+%d %s: too few for an interval (need 2 a side)", t.NBase, t.NNew, out.Level))
		return false
	}
	return true
}

// roundList names launch rounds 1-based, as the launch lines do.
func roundList(rounds []int) string {
	var parts []string
	for _, r := range rounds {
		parts = append(parts, fmt.Sprintf("#%d", r+1))
	}
	return strings.Join(parts, ", ")
}

// oppositeNote flags a significant test left without a change verdict:
// below the noise threshold, or pointing against the median iteration time.
func oppositeNote(r Ratio, cfg verdictConfig) []string {
	if r.P >= cfg.alpha || r.Verdict == VerdictFaster || r.Verdict == VerdictSlower {
		return nil
	}
	dir := "slower"
	if r.Of < 1 {
		dir = "faster"
	}
	if r.Change != 0 && (r.Of < 1) != (r.Change < 0) {
		return []string{fmt.Sprintf("the test is significant toward %s (%s) while the median iteration time moved %+.1f%%: the launches disagree with the pooled iterations; look at the per-launch means before trusting either",
			dir, pText(r.P), 100*r.Change)}
	}
	return []string{fmt.Sprintf("the test is significant toward %s (%s) but by %.1f%%, within the %g%% noise threshold", dir, pText(r.P), 100*math.Abs(r.Of-1), 100*cfg.noise)}
}

// launchValuesOf lines up two cases' per-launch values by launch round.
// When both ran rounds with the same numbers (the runner numbers a
// comparison's rounds alike for every spec), the rounds both ran are
// paired and the rounds either lacks are dropped (listed). With fewer than
// two common rounds (two separate runs, say) every launch of each side
// counts, unpaired.
func launchValuesOf(b, c []analysis.Launch, value func(analysis.Launch) float64) (bv, cv []float64, paired bool, dropped []int) {
	inB, inC := map[int]float64{}, map[int]float64{}
	for _, l := range b {
		inB[l.Launch] = value(l)
	}
	for _, l := range c {
		inC[l.Launch] = value(l)
	}
	rounds, dropped := byRound(inB, inC)
	if len(rounds) < 2 {
		return unpairedValues(b, c, value)
	}
	for _, r := range rounds {
		bv, cv = append(bv, inB[r]), append(cv, inC[r])
	}
	return bv, cv, true, dropped
}

// byRound lines up two sides' values by launch round: the rounds both
// have, and the rounds only one has, each in order.
func byRound(base, new map[int]float64) (rounds, dropped []int) {
	for r := range new {
		if _, ok := base[r]; ok {
			rounds = append(rounds, r)
		} else {
			dropped = append(dropped, r)
		}
	}
	for r := range base {
		if _, ok := new[r]; !ok {
			dropped = append(dropped, r)
		}
	}
	slices.Sort(rounds)
	slices.Sort(dropped)
	return rounds, dropped
}

// unpairedValues is every launch's value of each side.
func unpairedValues(b, c []analysis.Launch, value func(analysis.Launch) float64) (bv, cv []float64, paired bool, dropped []int) {
	for _, l := range b {
		bv = append(bv, value(l))
	}
	for _, l := range c {
		cv = append(cv, value(l))
	}
	return bv, cv, false, nil
}

// pText prints p the way papers do: tiny values as a bound.
func pText(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}

// verdictOf names stats.Compare's outcome as the tables do.
func verdictOf(cmp stats.Comparison) string {
	switch {
	case cmp.TooFewSamples:
		return VerdictTooFew
	case cmp.Verdict == stats.Improved:
		return VerdictFaster
	case cmp.Verdict == stats.Regressed:
		return VerdictSlower
	case cmp.Verdict == stats.WithinNoise:
		return VerdictNoise
	}
	return VerdictUndecided
}
