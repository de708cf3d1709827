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
}

// verdictConfig is what a verdict is decided at.
type verdictConfig struct {
	alpha, noise float64
	effect       float64 // the "same" margin and the effect launch counts are suggested for
}

// verdictConfig is the run's: alpha split over an until-known run's looks.
func (r Report) verdictConfig() verdictConfig {
	return verdictConfig{alpha: r.Design.Alpha(DefaultAlpha), noise: DefaultNoise, effect: r.Scenario.Compare.EffectOrDefault()}
}

// ciLabel names the interval column at the run's confidence level.
func ciLabel(alpha float64) string { return fmt.Sprintf("%.4g%% CI", 100*(1-alpha)) }

// maxSuggestedLaunches caps the launch count a note suggests.
const maxSuggestedLaunches = 100

// outcomeVerdicts names stats.Decide's outcomes as the tables do.
var outcomeVerdicts = map[stats.Outcome]string{stats.Lower: VerdictFaster, stats.Higher: VerdictSlower,
	stats.Same: VerdictSame, stats.NotYetKnown: VerdictUnknown}

// ratioOf compares case c with the baseline case b. The verdict's test
// takes one value per launch (its mean iteration time): a paired t test of
// the per-round log ratios when both specs ran the same launch rounds (A B
// B A … or shuffled rounds), else Welch's; see stats.TestRatio for why.
// Iterations are never pooled across launches: launches differ by 3–10%
// while a launch's own standard error is ≈2% (docs/verdicts.md). With one launch a side the test falls back to the iterations and
// says so in Notes.
//
//	RatioSD = Ratio · √((sd(c)/mean(c))² + (sd(b)/mean(b))²)
//
// over the iteration times: BenchmarkDotNet's RatioSD, how much one
// iteration's ratio spreads, not how precisely the ratio is known (that is
// the interval).
func ratioOf(c, b Row, cfg verdictConfig) Ratio {
	out := Ratio{P: 1, Verdict: VerdictUnknown, Effect: cfg.effect}
	if b.Time.Mean > 0 && c.Time.Mean > 0 {
		out.SD = c.Time.Mean / b.Time.Mean * math.Hypot(c.Time.StdDev/c.Time.Mean, b.Time.StdDev/b.Time.Mean)
	}
	bs, _ := samples(b)
	cs, _ := samples(c)
	out.Change = stats.Compare(bs, cs, cfg.alpha, cfg.noise, true).Change

	var t stats.RatioTest
	if len(b.Launches) >= 2 && len(c.Launches) >= 2 {
		bv, cv, paired := launchValues(b.Launches, c.Launches)
		t = stats.TestRatio(bv, cv, paired, cfg.alpha)
		out.Level = LevelLaunches
	} else {
		t = stats.TestRatio(bs, cs, false, cfg.alpha)
		out.Level = LevelIterations
		out.Notes = append(out.Notes, fmt.Sprintf("%d+%d launch(es): the verdict tests iterations, so it ignores launch-to-launch variance (3–10%% of the mean on a 2-core VM, against ≈2%% within a launch); run LaunchCount ≥ 2 (comparisons default to %d)",
			len(b.Launches), len(c.Launches), scenario.DefaultCompareLaunches))
	}
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
		return out
	}
	outcome := stats.Decide(t, cfg.noise, cfg.effect)
	out.Verdict = outcomeVerdicts[outcome]
	switch outcome {
	case stats.Lower, stats.Higher:
	case stats.Same:
		out.Notes = append(out.Notes, fmt.Sprintf("same: no change larger than %.1f%% (%s %.3f–%.3f)", 100*t.Excluded(), ciLabel(cfg.alpha), t.Low, t.High))
	default:
		out.Notes = append(out.Notes, fmt.Sprintf("not yet known: changes up to %.1f%% are not excluded (%s %.3f–%.3f)", 100*t.Excluded(), ciLabel(cfg.alpha), t.Low, t.High))
	}
	if out.Level == LevelLaunches {
		n, ok := stats.Suggest(cfg.effect, t.SD, t.Paired, cfg.alpha, stats.DefaultPower, maxSuggestedLaunches)
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
	}
	out.Notes = append(out.Notes, oppositeNote(out, cfg)...)
	return out
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

// launchValues lines up two cases' launch means: paired by launch round
// when both ran the same rounds, else every launch of each, unpaired.
func launchValues(b, c []analysis.Launch) (bv, cv []float64, paired bool) {
	return launchValuesOf(b, c, func(l analysis.Launch) float64 { return l.MeanSeconds })
}

// launchValuesOf is launchValues of any per-launch value.
func launchValuesOf(b, c []analysis.Launch, value func(analysis.Launch) float64) (bv, cv []float64, paired bool) {
	byRound := map[int]float64{}
	for _, l := range b {
		byRound[l.Launch] = value(l)
	}
	paired = len(b) == len(c)
	for _, l := range c {
		if _, ok := byRound[l.Launch]; !ok {
			paired = false
		}
	}
	if paired {
		for _, l := range c {
			bv, cv = append(bv, byRound[l.Launch]), append(cv, value(l))
		}
		return bv, cv, true
	}
	for _, l := range b {
		bv = append(bv, value(l))
	}
	for _, l := range c {
		cv = append(cv, value(l))
	}
	return bv, cv, false
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
