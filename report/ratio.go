package report

import (
	"math"
	"slices"
	"strings"

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
	VerdictNoise      = "within noise"
	VerdictTooFew     = "too few samples"
	VerdictUndecided  = "inconclusive"
	VerdictNoBaseline = "no baseline case"
)

// Ratio is BenchmarkDotNet's Ratio and RatioSD of a case against the same
// case on the baseline spec, with the verdict of `lnbench compare`'s test.
type Ratio struct {
	// Of is the mean iteration time over the baseline case's mean.
	Of float64 `json:"ratio"`
	// SD is the standard deviation of that ratio, propagated to first order
	// from the two relative standard deviations (see ratioOf).
	SD      float64 `json:"ratio_sd"`
	Verdict string  `json:"verdict"`
	// Change and P are stats.Compare's relative change of the median
	// iteration time and Mann-Whitney p-value (0 and 1 on the baseline row).
	Change float64 `json:"median_change"`
	P      float64 `json:"p"`
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
			r.Cases[i].Ratio = &Ratio{Of: 1, Verdict: VerdictBaseline, P: 1}
		case ok:
			rt := ratioOf(c, b, DefaultAlpha, DefaultNoise)
			r.Cases[i].Ratio = &rt
		}
	}
}

// ratioOf compares case c with the baseline case b:
//
//	Ratio   = mean(c) / mean(b)
//	RatioSD = Ratio · √((sd(c)/mean(c))² + (sd(b)/mean(b))²)
//
// over the measured iteration times: the first-order (delta method) standard
// deviation of a ratio of two independent quantities, so it says how much
// one iteration's ratio spreads, as BenchmarkDotNet's RatioSD does, not how
// precisely the mean ratio is known. The verdict is stats.Compare's on the
// same iteration times (Mann-Whitney U, p < alpha, |Δ median| > noise),
// exactly as `lnbench compare` decides.
func ratioOf(c, b Row, alpha, noise float64) Ratio {
	out := Ratio{P: 1, Verdict: VerdictUndecided}
	if b.Time.Mean > 0 && c.Time.Mean > 0 {
		out.Of = c.Time.Mean / b.Time.Mean
		out.SD = out.Of * math.Hypot(c.Time.StdDev/c.Time.Mean, b.Time.StdDev/b.Time.Mean)
	}
	bs, _ := samples(b)
	cs, _ := samples(c)
	cmp := stats.Compare(bs, cs, alpha, noise, true)
	out.Change = cmp.Change
	if !math.IsNaN(cmp.P) { // JSON has no NaN
		out.P = cmp.P
	}
	out.Verdict = verdictOf(cmp)
	return out
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
