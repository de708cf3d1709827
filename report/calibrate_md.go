package report

import (
	"fmt"
	"io"
	"strings"
)

// WriteCalibration renders the calibration in markdown: the A/A part when
// the run had a copy of the baseline, then each changed spec's detection.
func WriteCalibration(w io.Writer, c Calibration) {
	fmt.Fprintf(w, "# Calibration: %s design\n\n", c.Design)
	fmt.Fprintf(w, "%d launch pairs, read as comparisons of %d launch pairs each (alpha %g, noise threshold %g%%, \"same\" margin %g%%).\n\n",
		c.Pairs, c.Window, c.Alpha, 100*c.Noise, 100*c.Effect)
	if c.Comparisons > 0 {
		fmt.Fprintf(w, "## A/A: the baseline against a copy of itself\n\n")
		fmt.Fprintf(w, "**False-positive rate: %d of %d comparisons = %.1f%%** (95%% upper bound %.1f%%); same %d, not yet known %d.\n\n",
			c.False, c.Comparisons, 100*c.Rate, 100*c.RateHigh, c.Same, c.Unknown)
		fmt.Fprintf(w, "One launch pair's ratio spreads by %.1f%% (RMS of log b/a); median MDE of a %d-pair comparison: %.1f%%.\n\n", 100*c.RMSLogRatio, c.Window, 100*c.MedianMDE)
		writeWindows(w, c.Verdicts)
	}
	for _, d := range c.Detections {
		fmt.Fprintf(w, "## Detection: %s (%s) against the baseline\n\n", d.Spec, d.Build)
		if d.Comparisons == 0 {
			fmt.Fprintf(w, "No case's change is established over all %d pairs, so no window can be scored: the effect is below what this run resolves.\n\n", c.Pairs)
		} else {
			fmt.Fprintf(w, "**Detection rate: %d of %d comparisons = %.1f%%** (95%% lower bound %.1f%%); the other direction %d, missed (same or not yet known) %d. Only cases whose change all pairs together establish are scored.\n\n",
				d.Detected, d.Comparisons, 100*d.Rate, 100*d.RateLow, d.Opposite, d.Missed)
		}
		fmt.Fprintln(w, "| Case | Pairs | Ratio (all pairs) | CI | p | Verdict | Windows detected |")
		fmt.Fprintln(w, "|---|---:|---:|---|---:|---|---:|")
		for _, dc := range d.Cases {
			scored := "not scored"
			if dc.Comparisons > 0 {
				scored = fmt.Sprintf("%d of %d", dc.Detected, dc.Comparisons)
			}
			fmt.Fprintf(w, "| %s | %d | %.3f | %.3f–%.3f | %s | %s | %s |\n", cell(dc.Case), dc.Pairs, dc.Ratio, dc.Low, dc.High, pText(dc.P), dc.Verdict, scored)
		}
		fmt.Fprintln(w)
		writeWindows(w, d.Verdicts)
	}
}

func writeWindows(w io.Writer, vs []CalibrationVerdict) {
	fmt.Fprintln(w, "| Case | Window | Ratio | CI | p | MDE | Verdict |")
	fmt.Fprintln(w, "|---|---:|---:|---|---:|---:|---|")
	for _, v := range vs {
		fmt.Fprintf(w, "| %s | %d | %.3f | %.3f–%.3f | %s | %.1f%% | %s |\n", cell(v.Case), v.Window+1, v.Ratio, v.Low, v.High, pText(v.P), 100*v.MDE, v.Verdict)
	}
	fmt.Fprintln(w)
}

func cell(s string) string { return strings.ReplaceAll(s, "|", "/") }
