package report

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/stats"
)

// Calibration reads a run's verdicts window by window: every spec is
// compared with the baseline over consecutive windows of Window launch
// pairs, one comparison per window and case. A spec identical to the
// baseline (a copy: same build, flags, profile) measures the false-positive
// rate: every "faster" or "slower" is wrong. A spec that differs (a known
// slowdown) measures the detection rate: how often a comparison of Window
// pairs finds the change that all the pairs together establish.
type Calibration struct {
	Design string  `json:"design"`
	Window int     `json:"window_launch_pairs"`
	Pairs  int     `json:"launch_pairs"`
	Alpha  float64 `json:"alpha"`
	Noise  float64 `json:"noise"`
	Effect float64 `json:"effect"`
	// The A/A part: comparisons of copies of the baseline.
	Comparisons int     `json:"comparisons"`
	False       int     `json:"false_verdicts"`
	Same        int     `json:"same"`
	Unknown     int     `json:"not_yet_known"`
	Rate        float64 `json:"false_positive_rate"`
	// RateHigh is the one-sided 95% upper bound of Rate (Clopper-Pearson):
	// with few comparisons a low count says little.
	RateHigh float64 `json:"false_positive_rate_high"`
	// RMSLogRatio is the root-mean-square of log(b/a) over single launch
	// pairs of the copies: the spread one pair's ratio has when nothing
	// changed.
	RMSLogRatio float64              `json:"rms_log_ratio"`
	LogRatios   int                  `json:"log_ratios"` // single launch pairs in RMSLogRatio
	MedianMDE   float64              `json:"median_mde"`
	Verdicts    []CalibrationVerdict `json:"verdicts"`
	// Detections are the specs that differ from the baseline.
	Detections []Detection `json:"detections,omitempty"`
}

// CalibrationVerdict is one window's comparison of one case.
type CalibrationVerdict struct {
	Spec    string  `json:"spec,omitempty"`
	Case    string  `json:"case"`
	Window  int     `json:"window"` // 0-based
	Ratio   float64 `json:"ratio"`
	Low     float64 `json:"ratio_low"`
	High    float64 `json:"ratio_high"`
	P       float64 `json:"p"`
	MDE     float64 `json:"mde"`
	Verdict string  `json:"verdict"`
}

// Detection is one changed spec's windows against the baseline. A case
// counts only where all its launch pairs together call the change (the
// pooled verdict is faster or slower): there the effect is known, and a
// window detects it when its own verdict says the same.
type Detection struct {
	Spec  string `json:"spec"`
	Build string `json:"build"`
	// Comparisons are the windows of cases whose effect is established.
	Comparisons int     `json:"comparisons"`
	Detected    int     `json:"detected"`
	Opposite    int     `json:"opposite"` // the window called the other direction
	Missed      int     `json:"missed"`   // same or not yet known
	Rate        float64 `json:"detection_rate"`
	// RateLow is the one-sided 95% lower bound of Rate (Clopper-Pearson).
	RateLow  float64              `json:"detection_rate_low"`
	Cases    []DetectionCase      `json:"cases"`
	Verdicts []CalibrationVerdict `json:"verdicts"`
}

// DetectionCase is one case's effect over all launch pairs, and how many
// of its windows found it.
type DetectionCase struct {
	Case        string  `json:"case"`
	Pairs       int     `json:"launch_pairs"`
	Ratio       float64 `json:"ratio"`
	Low         float64 `json:"ratio_low"`
	High        float64 `json:"ratio_high"`
	P           float64 `json:"p"`
	Verdict     string  `json:"verdict"`
	Comparisons int     `json:"comparisons"`
	Detected    int     `json:"detected"`
}

// Calibrate reads r's verdicts window by window. r must compare specs
// with a baseline over whole launch rounds; window is the launch pairs per
// comparison, the launch count the verdicts are calibrated for.
func Calibrate(r Report, window int) (Calibration, error) {
	label := r.BaselineLabel()
	if label == "" || len(r.Nodes) < 2 {
		return Calibration{}, fmt.Errorf("calibration reads a run of node specs against a baseline (lnbench calibrate makes one); this run has %d spec(s) and baseline %q", len(r.Nodes), label)
	}
	if window < 2 {
		return Calibration{}, fmt.Errorf("--window %d: a launch-level verdict needs at least 2 launch pairs per comparison", window)
	}
	cfg := r.verdictConfig()
	cal := Calibration{Window: window, Alpha: cfg.alpha, Noise: cfg.noise, Effect: cfg.effect}
	if r.Design != nil {
		cal.Design = r.Design.Name
	}
	var baseInfo record.NodeInfo
	for _, n := range r.Nodes {
		if n.Label == label {
			baseInfo = n
		}
	}
	base := map[string]Row{}
	for _, c := range r.Cases {
		if c.Node == label {
			base[withoutNode(c.Params)] = c
		}
	}
	var logs, mdes []float64
	detections := map[string]*Detection{}
	for _, n := range r.Nodes {
		if n.Label != label && !sameSpec(n, baseInfo) {
			detections[n.Label] = &Detection{Spec: n.Label, Build: n.Build}
		}
	}
	for _, c := range r.Cases {
		b, ok := base[withoutNode(c.Params)]
		if c.Node == label || !ok {
			continue
		}
		// An interrupted run's last round may be cut short or missing on
		// one side: only rounds both sides finished are read.
		b.Launches, c.Launches = wholeRounds(b.Launches, c.Launches)
		// The spread of the metric the verdicts test: an open loop's
		// iteration time is its schedule's, whatever the node does.
		bv, cv, paired, _ := launchValuesOf(b.Launches, c.Launches, launchValue(primaryMetric(b)))
		if !paired {
			return Calibration{}, fmt.Errorf("case %s: its launches do not pair with the baseline's (%d and %d launches): calibration needs whole launch rounds", c.ID, len(c.Launches), len(b.Launches))
		}
		cal.Pairs = max(cal.Pairs, len(cv))
		windows := windowVerdicts(c, b, window, cfg)
		if d := detections[c.Node]; d != nil {
			d.add(c, b, windows, cfg)
			continue
		}
		for i := range cv {
			logs = append(logs, math.Log(cv[i]/bv[i]))
		}
		cal.LogRatios += len(cv)
		for _, v := range windows {
			cal.Verdicts = append(cal.Verdicts, v)
			mdes = append(mdes, v.MDE)
			switch v.Verdict {
			case VerdictFaster, VerdictSlower:
				cal.False++
			case VerdictSame:
				cal.Same++
			default:
				cal.Unknown++
			}
		}
	}
	cal.Comparisons = len(cal.Verdicts)
	for _, n := range r.Nodes {
		if d := detections[n.Label]; d != nil {
			d.finish()
			cal.Detections = append(cal.Detections, *d)
		}
	}
	if cal.Comparisons == 0 && !slices.ContainsFunc(cal.Detections, func(d Detection) bool { return len(d.Verdicts) > 0 }) {
		return cal, fmt.Errorf("no comparison: %d launch pair(s) per case, fewer than one window of %d; run more launch pairs (--pairs) or a smaller --window", cal.Pairs, window)
	}
	if cal.Comparisons > 0 {
		cal.Rate = float64(cal.False) / float64(cal.Comparisons)
		cal.RateHigh = clopperPearsonHigh(cal.False, cal.Comparisons, 0.05)
		sq := 0.0
		for _, l := range logs {
			sq += l * l
		}
		cal.RMSLogRatio = math.Sqrt(sq / float64(len(logs)))
		cal.MedianMDE = stats.Percentiles(mdes, 50)[0]
	}
	return cal, nil
}

// wholeRounds keeps the launch rounds both sides ran whole: every
// iteration a launch of that case ran at most.
func wholeRounds(b, c []analysis.Launch) (bw, cw []analysis.Launch) {
	most := 0
	for _, l := range append(append([]analysis.Launch(nil), b...), c...) {
		most = max(most, l.Iterations)
	}
	whole := func(ls []analysis.Launch) map[int]bool {
		m := map[int]bool{}
		for _, l := range ls {
			if l.Iterations == most {
				m[l.Launch] = true
			}
		}
		return m
	}
	inB, inC := whole(b), whole(c)
	for _, l := range b {
		if inB[l.Launch] && inC[l.Launch] {
			bw = append(bw, l)
		}
	}
	for _, l := range c {
		if inB[l.Launch] && inC[l.Launch] {
			cw = append(cw, l)
		}
	}
	return bw, cw
}

// windowVerdicts compares c with b over each whole window of launch pairs.
func windowVerdicts(c, b Row, window int, cfg verdictConfig) []CalibrationVerdict {
	var out []CalibrationVerdict
	for w := 0; (w+1)*window <= min(len(c.Launches), len(b.Launches)); w++ {
		cw, bw := c, b
		cw.Launches, bw.Launches = c.Launches[w*window:(w+1)*window], b.Launches[w*window:(w+1)*window]
		rt := ratioOf(cw, bw, cfg)
		out = append(out, CalibrationVerdict{Spec: c.Node, Case: withoutNode(c.Params), Window: w, Ratio: rt.Of, Low: rt.Low, High: rt.High, P: rt.P, MDE: rt.MDE, Verdict: rt.Verdict})
	}
	return out
}

// add counts one case's windows against the effect all its pairs show.
func (d *Detection) add(c, b Row, windows []CalibrationVerdict, cfg verdictConfig) {
	all := ratioOf(c, b, cfg)
	dc := DetectionCase{Case: withoutNode(c.Params), Pairs: min(len(c.Launches), len(b.Launches)), Ratio: all.Of, Low: all.Low, High: all.High, P: all.P, Verdict: all.Verdict}
	established := all.Verdict == VerdictFaster || all.Verdict == VerdictSlower
	for _, v := range windows {
		d.Verdicts = append(d.Verdicts, v)
		if !established {
			continue
		}
		dc.Comparisons++
		switch v.Verdict {
		case all.Verdict:
			dc.Detected++
		case VerdictFaster, VerdictSlower:
			d.Opposite++
		default:
			d.Missed++
		}
	}
	d.Comparisons += dc.Comparisons
	d.Detected += dc.Detected
	d.Cases = append(d.Cases, dc)
}

func (d *Detection) finish() {
	if d.Comparisons > 0 {
		d.Rate = float64(d.Detected) / float64(d.Comparisons)
		d.RateLow = clopperPearsonLow(d.Detected, d.Comparisons, 0.05)
	}
}

// sameSpec reports whether two specs run the same node: a copy made for
// an A/A comparison differs only in its label.
func sameSpec(a, b record.NodeInfo) bool {
	key := a.Build == b.Build
	if a.Key != "" && b.Key != "" {
		key = a.Key == b.Key
	}
	return key && a.Profile == b.Profile && slices.Equal(a.Flags, b.Flags) && slices.Equal(a.Env, b.Env)
}

// clopperPearsonHigh is the exact one-sided upper bound at level alpha of
// a binomial proportion with k successes in n trials: the 1-alpha quantile
// of Beta(k+1, n-k).
func clopperPearsonHigh(k, n int, alpha float64) float64 {
	if k >= n {
		return 1
	}
	return distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - alpha)
}

// clopperPearsonLow is the matching lower bound: the alpha quantile of
// Beta(k, n-k+1).
func clopperPearsonLow(k, n int, alpha float64) float64 {
	if k <= 0 {
		return 0
	}
	return distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(alpha)
}
