package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/lnbench/lnbench/stats"
)

// Calibration is an A/A run's verdicts: the same build compared with
// itself, its launch pairs cut into consecutive windows of Window pairs,
// one comparison per window and case. Every "faster" or "slower" is a
// false positive; their share is the design's measured false-positive
// rate at the run's alpha and noise threshold.
type Calibration struct {
	Design      string  `json:"design"`
	Window      int     `json:"window_launch_pairs"`
	Pairs       int     `json:"launch_pairs"`
	Alpha       float64 `json:"alpha"`
	Noise       float64 `json:"noise"`
	Effect      float64 `json:"effect"`
	Comparisons int     `json:"comparisons"`
	False       int     `json:"false_verdicts"`
	Same        int     `json:"same"`
	Unknown     int     `json:"not_yet_known"`
	Rate        float64 `json:"false_positive_rate"`
	// RateHigh is the one-sided 95% upper bound of Rate (Clopper-Pearson):
	// with few comparisons a low count says little.
	RateHigh float64 `json:"false_positive_rate_high"`
	// RMSLogRatio is the root-mean-square of log(b/a) over single launch
	// pairs: the spread one pair's ratio has when nothing changed.
	RMSLogRatio float64              `json:"rms_log_ratio"`
	MedianMDE   float64              `json:"median_mde"`
	Verdicts    []CalibrationVerdict `json:"verdicts"`
}

// CalibrationVerdict is one window's comparison of one case.
type CalibrationVerdict struct {
	Case    string  `json:"case"`
	Window  int     `json:"window"` // 0-based
	Ratio   float64 `json:"ratio"`
	Low     float64 `json:"ratio_low"`
	High    float64 `json:"ratio_high"`
	P       float64 `json:"p"`
	MDE     float64 `json:"mde"`
	Verdict string  `json:"verdict"`
}

// Calibrate reads r's verdicts window by window. r must compare two
// specs of one build (the baseline and its copy); window is the launch
// pairs per comparison, the launch count the verdicts are calibrated for.
func Calibrate(r Report, window int) (Calibration, error) {
	label := r.BaselineLabel()
	if label == "" || len(r.Nodes) != 2 {
		return Calibration{}, fmt.Errorf("calibration reads a run of two node specs with a baseline (lnbench calibrate makes one); this run has %d spec(s)", len(r.Nodes))
	}
	if window < 2 {
		return Calibration{}, fmt.Errorf("--window %d: a launch-level verdict needs at least 2 launch pairs per comparison", window)
	}
	cfg := r.verdictConfig()
	cal := Calibration{Window: window, Alpha: cfg.alpha, Noise: cfg.noise, Effect: cfg.effect}
	if r.Design != nil {
		cal.Design = r.Design.Name
	}
	base := map[string]Row{}
	for _, c := range r.Cases {
		if c.Node == label {
			base[withoutNode(c.Params)] = c
		}
	}
	var logs, mdes []float64
	for _, c := range r.Cases {
		b, ok := base[withoutNode(c.Params)]
		if c.Node == label || !ok {
			continue
		}
		bv, cv, paired := launchValues(b.Launches, c.Launches)
		if !paired {
			return Calibration{}, fmt.Errorf("case %s: its launches do not pair with the baseline's (%d and %d launches): calibration needs whole launch rounds", c.ID, len(c.Launches), len(b.Launches))
		}
		cal.Pairs = max(cal.Pairs, len(cv))
		for i := range cv {
			logs = append(logs, math.Log(cv[i]/bv[i]))
		}
		for w := 0; (w+1)*window <= len(cv); w++ {
			cw, bw := c, b
			cw.Launches, bw.Launches = c.Launches[w*window:(w+1)*window], b.Launches[w*window:(w+1)*window]
			rt := ratioOf(cw, bw, cfg)
			cal.Verdicts = append(cal.Verdicts, CalibrationVerdict{Case: withoutNode(c.Params), Window: w, Ratio: rt.Of, Low: rt.Low, High: rt.High, P: rt.P, MDE: rt.MDE, Verdict: rt.Verdict})
			mdes = append(mdes, rt.MDE)
			switch rt.Verdict {
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
	if cal.Comparisons == 0 {
		return cal, fmt.Errorf("no comparison: %d launch pair(s) per case, fewer than one window of %d; run more launch pairs (--pairs) or a smaller --window", cal.Pairs, window)
	}
	cal.Rate = float64(cal.False) / float64(cal.Comparisons)
	cal.RateHigh = clopperPearsonHigh(cal.False, cal.Comparisons, 0.05)
	sq := 0.0
	for _, l := range logs {
		sq += l * l
	}
	cal.RMSLogRatio = math.Sqrt(sq / float64(len(logs)))
	cal.MedianMDE = stats.Percentiles(mdes, 50)[0]
	return cal, nil
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

// WriteCalibration renders the calibration in markdown.
func WriteCalibration(w io.Writer, c Calibration) {
	fmt.Fprintf(w, "# A/A calibration: %s design\n\n", c.Design)
	fmt.Fprintf(w, "The same build as spec a and spec b, %d launch pairs, read as comparisons of %d launch pairs each (alpha %g, noise threshold %g%%, \"same\" margin %g%%).\n\n",
		c.Pairs, c.Window, c.Alpha, 100*c.Noise, 100*c.Effect)
	fmt.Fprintf(w, "**False-positive rate: %d of %d comparisons = %.1f%%** (95%% upper bound %.1f%%); same %d, not yet known %d.\n\n",
		c.False, c.Comparisons, 100*c.Rate, 100*c.RateHigh, c.Same, c.Unknown)
	fmt.Fprintf(w, "One launch pair's ratio spreads by %.1f%% (RMS of log b/a); median MDE of a %d-pair comparison: %.1f%%.\n\n", 100*c.RMSLogRatio, c.Window, 100*c.MedianMDE)
	fmt.Fprintln(w, "| Case | Window | Ratio | CI | p | MDE | Verdict |")
	fmt.Fprintln(w, "|---|---:|---:|---|---:|---:|---|")
	for _, v := range c.Verdicts {
		fmt.Fprintf(w, "| %s | %d | %.3f | %.3f–%.3f | %s | %.1f%% | %s |\n", strings.ReplaceAll(v.Case, "|", "/"), v.Window+1, v.Ratio, v.Low, v.High, pText(v.P), 100*v.MDE, v.Verdict)
	}
}
