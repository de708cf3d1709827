package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/stats"
	"github.com/lnbench/lnbench/usage"
	"github.com/lnbench/lnbench/usage/cost"
)

// Figures a cost verdict compares, per payment (cost.Actor's).
const (
	CostCPU   = "cpu_ms_per_payment"
	CostSyncs = "syncs_per_payment"
)

// Cost verdicts: what an actor of the case spends per payment against the
// same actor of the baseline case. "same" and "not yet known" are the time
// verdict's (VerdictSame, VerdictUnknown).
const (
	CostMore = "more"
	CostLess = "less"
)

// CostVerdict compares one actor's cost per payment (CPU ms, or syncs)
// with the same actor's in the baseline case, launches as the unit exactly
// as the time verdict is: each launch's figure over its own payments, a
// paired t test of the per-round log ratios over the launch rounds both
// sides ran (stats.TestRatio), and stats.Decide's outcome.
type CostVerdict struct {
	Actor  string `json:"actor"`
	Figure string `json:"figure"` // CostCPU | CostSyncs
	// Base and New are the two sides' mean per-payment figures over the
	// rounds compared; Diff is New − Base (ms or syncs per payment).
	Base float64 `json:"baseline"`
	New  float64 `json:"case"`
	Diff float64 `json:"difference"`
	// Ratio is the geometric mean over those rounds of new over base; Low
	// and High bound it at 1-Alpha (0: no interval, with fewer than 2 rounds).
	Ratio float64 `json:"ratio"`
	Low   float64 `json:"ratio_low"`
	High  float64 `json:"ratio_high"`
	P     float64 `json:"p"`
	// PHolm is P adjusted over every cost verdict of the run (Holm): a
	// "more" or "less" needs it below Alpha too.
	PHolm float64 `json:"p_holm,omitempty"`
	Alpha float64 `json:"alpha"`
	MDE   float64 `json:"mde"`
	// Rounds are the launch rounds compared (0-based, as analysis.Launch);
	// Dropped the rounds only one side has a figure for.
	Rounds  []int `json:"rounds"`
	Dropped []int `json:"dropped_rounds,omitempty"`
	// Effect is what "same" excludes; LaunchesForEffect the launches per
	// spec that would detect it at this spread (0: unknown).
	Effect            float64  `json:"effect"`
	LaunchesForEffect int      `json:"launches_for_effect,omitempty"`
	Verdict           string   `json:"verdict"`
	Notes             []string `json:"notes,omitempty"`
	Unreliable        bool     `json:"unreliable,omitempty"`
}

// Changed tells whether the verdict is a change (more or less).
func (v CostVerdict) Changed() bool { return v.Verdict == CostMore || v.Verdict == CostLess }

// costOutcomes names stats.Decide's outcomes for a cost.
var costOutcomes = map[stats.Outcome]string{stats.Lower: CostLess, stats.Higher: CostMore,
	stats.Same: VerdictSame, stats.NotYetKnown: VerdictUnknown}

// costCompared says whether an actor's cost is compared: the nodes, the
// chain and a database server, what a node spec changes; not the harness,
// the sampler or the proxy, which measure the run.
func costCompared(a cost.Actor) bool { return usage.NetworkRole(a.Role) }

// launchFigures are an actor's per-launch values of a figure by launch
// round: its Launches, or with one launch the actor's own figures as
// launch 0. A launch without payments, or without a sync counter for
// syncs, has none.
func launchFigures(a cost.Actor, figure string) map[int]float64 {
	ls := a.Launches
	if ls == nil {
		ls = []cost.LaunchCost{{Launch: 0, Payments: a.Payments, CPUMsPerPayment: a.CPUMsPerPayment, SyncsCounted: a.SyncsCounted, SyncsPerPayment: a.SyncsPerPayment}}
	}
	out := map[int]float64{}
	for _, l := range ls {
		switch {
		case l.Payments == 0:
		case figure == CostCPU:
			out[l.Launch] = l.CPUMsPerPayment
		case l.SyncsCounted:
			out[l.Launch] = l.SyncsPerPayment
		}
	}
	return out
}

// costVerdictsOf compares each compared actor of case c with the same
// actor of baseline case b, CPU then syncs, in c's actor order. A figure
// neither side has (syncs never counted) is left out, as is an actor the
// baseline lacks.
func costVerdictsOf(c, b cost.Case, cfg verdictConfig) []CostVerdict {
	var out []CostVerdict
	for _, a := range c.Actors {
		i := slices.IndexFunc(b.Actors, func(x cost.Actor) bool { return x.Name == a.Name })
		if !costCompared(a) || i < 0 {
			continue
		}
		for _, fig := range []string{CostCPU, CostSyncs} {
			bf, cf := launchFigures(b.Actors[i], fig), launchFigures(a, fig)
			if len(bf) == 0 && len(cf) == 0 || allZero(bf) && allZero(cf) {
				continue // not measured, or nothing to compare (no syncs at all)
			}
			out = append(out, costVerdictOf(a.Name, fig, bf, cf, cfg))
		}
	}
	return out
}

func allZero(m map[int]float64) bool {
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return true
}

// costVerdictOf tests one actor's figure, paired by launch round: rounds
// only one side has a figure for are dropped. With one round there is a
// ratio but no interval, so no verdict but "not yet known".
func costVerdictOf(actor, figure string, base, new map[int]float64, cfg verdictConfig) CostVerdict {
	v := CostVerdict{Actor: actor, Figure: figure, P: 1, Alpha: cfg.alpha, Effect: cfg.effect, Verdict: VerdictUnknown}
	v.Rounds, v.Dropped = byRound(base, new)
	var bv, cv []float64
	for _, r := range v.Rounds {
		bv, cv = append(bv, base[r]), append(cv, new[r])
		v.Base += base[r] / float64(len(v.Rounds))
		v.New += new[r] / float64(len(v.Rounds))
	}
	v.Diff = v.New - v.Base
	if len(v.Dropped) > 0 {
		v.Notes = append(v.Notes, fmt.Sprintf("launch round(s) %s left out: measured on one side only", roundList(v.Dropped)))
	}
	if len(v.Rounds) == 0 {
		v.Notes = append(v.Notes, "no launch round measured on both sides")
		return v
	}
	t := stats.TestRatio(bv, cv, true, cfg.alpha)
	v.Ratio, v.P = t.Ratio, t.P
	if len(v.Rounds) >= 2 {
		v.Notes = append(v.Notes, t.Warnings...)
	}
	if len(v.Rounds) < 2 || math.IsNaN(t.SE) {
		v.P = 1
		v.Notes = append(v.Notes, fmt.Sprintf("%d launch round(s) on both sides: a ratio without an interval, so no verdict (the launch is the unit); run LaunchCount ≥ 2 (comparisons default to %d), and with 2 or more this note names the launch count that would detect a %g%% change",
			len(v.Rounds), scenario.DefaultCompareLaunches, 100*cfg.effect))
		return v
	}
	v.Low, v.High = t.Low, t.High
	if !math.IsNaN(t.MDE) {
		v.MDE = t.MDE
	}
	v.Verdict = costOutcomes[stats.Decide(t, cfg.noise, cfg.effect)]
	if v.Verdict == VerdictUnknown {
		v.Notes = append(v.Notes, fmt.Sprintf("not yet known: changes up to %.1f%% are not excluded (%s %.3f–%.3f)", 100*t.Excluded(), ciLabel(cfg.alpha), t.Low, t.High))
	}
	n, ok := stats.Suggest(cfg.effect, t.SD, true, cfg.alpha, stats.DefaultPower, maxSuggestedLaunches)
	if ok {
		v.LaunchesForEffect = n
	}
	if !v.Changed() && v.Verdict != VerdictSame {
		if ok {
			v.Notes = append(v.Notes, fmt.Sprintf("%d launches per spec would detect a %g%% change (80%% power at this launch spread)", n, 100*cfg.effect))
		} else {
			v.Notes = append(v.Notes, fmt.Sprintf("more than %d launches per spec would be needed to detect a %g%% change at this launch spread", maxSuggestedLaunches, 100*cfg.effect))
		}
	}
	return v
}

// holdCostTogether adjusts the p of every tested cost verdict over all of
// them (Holm), so that a run of many cases and actors calls a change that
// is not there at most alpha of the time in all, not alpha per figure; a
// change whose adjusted p is not below alpha becomes "not yet known" and
// says why. "same" rests on each interval and stays.
func holdCostTogether(vs []*CostVerdict) {
	var tested []*CostVerdict
	var ps []float64
	for _, v := range vs {
		if v.Low > 0 {
			tested, ps = append(tested, v), append(ps, v.P)
		}
	}
	if len(tested) < 2 {
		return
	}
	for k, adj := range stats.Holm(ps) {
		v := tested[k]
		v.PHolm = adj
		if v.Changed() && !(adj < v.Alpha) {
			v.Notes = append(v.Notes, fmt.Sprintf("%s alone (%s), but not over the run's %d cost comparisons (Holm-adjusted p=%.3f ≥ %g): not yet known",
				v.Verdict, pText(v.P), len(tested), adj, v.Alpha))
			v.Verdict = VerdictUnknown
		}
	}
}

// fillCostVerdicts sets every case's CostVerdicts against the case with
// the same other params on the baseline spec, from rep.Resources; nothing
// without a baseline or resources. Called by SummarizeResources.
func fillCostVerdicts(rep *Report) {
	for i := range rep.Cases {
		rep.Cases[i].CostVerdicts = nil
	}
	label := rep.BaselineLabel()
	if label == "" || len(rep.Resources) == 0 {
		return
	}
	res := map[string]cost.Case{}
	for _, c := range rep.Resources {
		res[c.ID] = c
	}
	base := map[string]string{}
	for _, c := range rep.Cases {
		if c.Node == label {
			base[withoutNode(c.Params)] = c.ID
		}
	}
	cfg := rep.verdictConfig()
	var all []*CostVerdict
	for i, c := range rep.Cases {
		cr, ok := res[c.ID]
		br, bok := res[base[withoutNode(c.Params)]]
		if c.Node == label || !ok || !bok {
			continue
		}
		vs := costVerdictsOf(cr, br, cfg)
		busy := cr.Outside != nil && cr.Outside.Busy || br.Outside != nil && br.Outside.Busy
		for k := range vs {
			if busy {
				vs[k].Unreliable = true
				vs[k].Notes = append(vs[k].Notes, BusyNote+" (see the warnings)")
			}
			all = append(all, &vs[k])
		}
		rep.Cases[i].CostVerdicts = vs
	}
	holdCostTogether(all)
}

// CostVerdictsBetween is the cost verdicts of spec subject against spec
// against in the case whose params but Node are caseKey (as
// MetricRatioBetween): each node's and the chain's CPU ms and syncs per
// payment, launches as the unit, paired by round, held together by Holm
// over the figures returned. CostLine sums them up in one line, for an
// evidence table. ok is false when either case or its resources is missing.
func CostVerdictsBetween(r Report, subject, against, caseKey string) ([]CostVerdict, bool) {
	var c, b *cost.Case
	for _, row := range r.Cases {
		res, ok := r.ResourcesOf(row.ID)
		if !ok || withoutNode(row.Params) != caseKey {
			continue
		}
		switch row.Node {
		case subject:
			c = &res
		case against:
			b = &res
		}
	}
	if c == nil || b == nil {
		return nil, false
	}
	vs := costVerdictsOf(*c, *b, r.verdictConfig())
	ptrs := make([]*CostVerdict, len(vs))
	for i := range vs {
		ptrs[i] = &vs[i]
	}
	holdCostTogether(ptrs)
	return vs, true
}

// costFigureNames name a figure in lines: the unit after a difference,
// and the short name among several.
var costFigureNames = map[string]struct{ unit, short string }{
	CostCPU:   {"ms CPU per payment", "CPU"},
	CostSyncs: {"syncs per payment", "syncs"},
}

// CostLine sums up a case's cost verdicts in one line, the actors whose
// cost changed first with the difference per payment, the ratio and its
// interval, e.g. "bob +2.5 ms CPU per payment (1.36×, 95% CI 1.30–1.42),
// more; alice same". "" without verdicts.
func CostLine(vs []CostVerdict) string {
	var parts []string
	for _, v := range vs {
		if v.Changed() {
			parts = append(parts, fmt.Sprintf("%s %s %s (%s), %s", v.Actor, signed(v.Diff), costFigureNames[v.Figure].unit, ratioText(v), v.Verdict))
		}
	}
	var actors []string
	rest := map[string][]CostVerdict{}
	changed := map[string]bool{}
	for _, v := range vs {
		if !slices.Contains(actors, v.Actor) {
			actors = append(actors, v.Actor)
		}
		if v.Changed() {
			changed[v.Actor] = true
		} else {
			rest[v.Actor] = append(rest[v.Actor], v)
		}
	}
	for _, a := range actors {
		if len(rest[a]) > 0 {
			parts = append(parts, a+" "+unchangedText(rest[a], changed[a]))
		}
	}
	return strings.Join(parts, "; ")
}

// unchangedText is an actor's figures without a change: one word when they
// agree ("same"), else each figure's; the ratios of those not yet known.
func unchangedText(vs []CostVerdict, named bool) string {
	agree := !slices.ContainsFunc(vs, func(v CostVerdict) bool { return v.Verdict != vs[0].Verdict })
	var words, ratios []string
	for _, v := range vs {
		words = append(words, costFigureNames[v.Figure].short+" "+v.Verdict)
		if v.Verdict == VerdictUnknown && v.Ratio > 0 {
			ratios = append(ratios, fmt.Sprintf("%s %.2f×", costFigureNames[v.Figure].short, v.Ratio))
		}
	}
	s := strings.Join(words, ", ")
	if agree && !named {
		s = vs[0].Verdict
	}
	if len(ratios) > 0 {
		s += " (" + strings.Join(ratios, ", ") + ")"
	}
	return s
}

// ratioText is "1.36×, 95% CI 1.30–1.42, MDE 4.1%", or the ratio alone
// without an interval.
func ratioText(v CostVerdict) string {
	if v.Low <= 0 {
		return fmt.Sprintf("%.2f×", v.Ratio)
	}
	s := fmt.Sprintf("%.2f×, %s %.2f–%.2f", v.Ratio, ciLabel(v.Alpha), v.Low, v.High)
	if v.MDE > 0 {
		s += fmt.Sprintf(", MDE %.1f%%", 100*v.MDE)
	}
	return s
}

// signed prints a difference with its sign and three significant digits
// (three decimals below 1).
func signed(d float64) string { return fmt.Sprintf("%+.*f", decimals(d), d) }

// figure prints a per-payment figure as signed does, without the sign.
func figure(v float64) string { return fmt.Sprintf("%.*f", decimals(v), v) }

func decimals(v float64) int {
	switch a := math.Abs(v); {
	case a >= 100:
		return 0
	case a >= 10:
		return 1
	case a >= 1:
		return 2
	}
	return 3
}

// CostVerdictLines are one line per case compared with the baseline on
// cost (CostLine, after the case id), then its notes indented, each once
// and named by the actors and figures it is about unless it is about all.
// Empty without cost verdicts: the sibling of VerdictLines.
func CostVerdictLines(r Report) []string {
	var out []string
	for _, c := range r.Cases {
		if len(c.CostVerdicts) == 0 {
			continue
		}
		out = append(out, c.ID+": "+CostLine(c.CostVerdicts))
		var notes []string
		about := map[string][]string{}
		for _, v := range c.CostVerdicts {
			for _, n := range v.Notes {
				if _, seen := about[n]; !seen {
					notes = append(notes, n)
				}
				about[n] = append(about[n], v.Actor+" "+costFigureNames[v.Figure].short)
			}
		}
		for _, n := range notes {
			if len(about[n]) == len(c.CostVerdicts) {
				out = append(out, "  "+n)
			} else {
				out = append(out, "  "+strings.Join(about[n], ", ")+": "+n)
			}
		}
	}
	return out
}

// CostVerdictTable is every cost verdict with its evidence, one row per
// case, actor and figure.
func CostVerdictTable(r Report) Table {
	t := Table{Header: []string{"Case", "Actor", "Per payment", "Baseline", "Case value", "Difference", "Ratio", ciLabel(r.verdictConfig().alpha), "p", "Rounds", "MDE", "Verdict"}}
	for _, c := range r.Cases {
		for _, v := range c.CostVerdicts {
			ci, p, mde := "-", "-", "-"
			if v.Low > 0 {
				ci, p = fmt.Sprintf("%.3f–%.3f", v.Low, v.High), pText(v.P)
			}
			if v.MDE > 0 {
				mde = fmt.Sprintf("%.1f%%", 100*v.MDE)
			}
			unit := "CPU ms"
			if v.Figure == CostSyncs {
				unit = "syncs"
			}
			t.Rows = append(t.Rows, []string{c.ID, v.Actor, unit, figure(v.Base), figure(v.New), signed(v.Diff),
				fmt.Sprintf("%.3f", v.Ratio), ci, p, fmt.Sprint(len(v.Rounds)), mde, v.Verdict})
		}
	}
	t.Legend = []string{
		"Per payment: CPU ms (user + system) or syncs (fsync + fdatasync) of one actor over each launch's measured iterations ÷ that launch's successful payments.",
		"Baseline, Case value: the two sides' mean over the launch rounds compared (Rounds); Difference: case − baseline.",
		"Ratio: geometric mean over those rounds of case ÷ baseline; interval, p and MDE: paired t test of the per-round log ratios, as the time verdict.",
		"Verdict: more or less (p below alpha, also Holm-adjusted over the run's cost comparisons, and over 2%), same (the interval within ±effect), else not yet known.",
	}
	return t
}
