package report

import (
	"fmt"
	"math"

	"github.com/lnbench/lnbench/stats"
)

// MergeCalibrations reads several calibration runs as one: their
// comparisons counted together (each window lies within one run), the
// rates and bounds recomputed. Runs must share the design, window, alpha,
// noise threshold and effect, or the counts would mix different tests.
func MergeCalibrations(cals []Calibration) (Calibration, error) {
	if len(cals) == 0 {
		return Calibration{}, fmt.Errorf("no calibration to merge")
	}
	out := Calibration{Design: cals[0].Design, Window: cals[0].Window, Alpha: cals[0].Alpha, Noise: cals[0].Noise, Effect: cals[0].Effect}
	detections := map[string]int{}
	sq := 0.0
	for i, c := range cals {
		if c.Design != out.Design || c.Window != out.Window || c.Alpha != out.Alpha || c.Noise != out.Noise || c.Effect != out.Effect {
			return Calibration{}, fmt.Errorf("calibration %d: design %s, window %d, alpha %g, noise %g, effect %g differ from the first's (%s, %d, %g, %g, %g): merge runs of one test only",
				i+1, c.Design, c.Window, c.Alpha, c.Noise, c.Effect, out.Design, out.Window, out.Alpha, out.Noise, out.Effect)
		}
		out.Pairs += c.Pairs
		out.False += c.False
		out.Same += c.Same
		out.Unknown += c.Unknown
		out.Verdicts = append(out.Verdicts, c.Verdicts...)
		sq += c.RMSLogRatio * c.RMSLogRatio * float64(c.LogRatios)
		out.LogRatios += c.LogRatios
		for _, d := range c.Detections {
			k, ok := detections[d.Spec]
			if !ok {
				k = len(out.Detections)
				detections[d.Spec] = k
				out.Detections = append(out.Detections, Detection{Spec: d.Spec, Build: d.Build})
			}
			m := &out.Detections[k]
			m.Comparisons += d.Comparisons
			m.Detected += d.Detected
			m.Opposite += d.Opposite
			m.Missed += d.Missed
			m.Cases = append(m.Cases, d.Cases...)
			m.Verdicts = append(m.Verdicts, d.Verdicts...)
		}
	}
	out.Comparisons = len(out.Verdicts)
	if out.Comparisons > 0 {
		out.Rate = float64(out.False) / float64(out.Comparisons)
		out.RateHigh = clopperPearsonHigh(out.False, out.Comparisons, 0.05)
		var mdes []float64
		for _, v := range out.Verdicts {
			mdes = append(mdes, v.MDE)
		}
		out.MedianMDE = stats.Percentiles(mdes, 50)[0]
	}
	if out.LogRatios > 0 {
		out.RMSLogRatio = math.Sqrt(sq / float64(out.LogRatios))
	}
	for i := range out.Detections {
		out.Detections[i].finish()
	}
	return out, nil
}
