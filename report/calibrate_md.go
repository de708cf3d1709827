package report

import (
	"fmt"
	"io"
	"strings"
)

// WriteCalibration renders the calibration in markdown: the A/A part when
// the run had a copy of the baseline, then each changed spec's detection.
func WriteCalibration(w io.Writer, c Calibration) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Calibration: %s design\n\n", c.Design)
	fmt.Fprintf(&b, "%d launch pairs, read as comparisons of %d launch pairs each (alpha %g, noise threshold %g%%, \"same\" margin %g%%).\n\n",
		c.Pairs, c.Window, c.Alpha, 100*c.Noise, 100*c.Effect)
	if c.Comparisons > 0 {
		fmt.Fprintf(&b, "## A/A: the baseline against a copy of itself\n\n")
		fmt.Fprintf(&b, "**False-positive rate: %d of %d comparisons = %.1f%%** (95%% upper bound %.1f%%); same %d, not yet known %d.\n\n",
			c.False, c.Comparisons, 100*c.Rate, 100*c.RateHigh, c.Same, c.Unknown)
		fmt.Fprintf(&b, "One launch pair's ratio spreads by %.1f%% (RMS of log b/a); median MDE of a %d-pair comparison: %.1f%%.\n\n", 100*c.RMSLogRatio, c.Window, 100*c.MedianMDE)
		writeMarkdownTable(&b, windowTable(c.Verdicts))
		b.WriteString("\n")
	}
	for _, d := range c.Detections {
		fmt.Fprintf(&b, "## Detection: %s (%s) against the baseline\n\n", d.Spec, d.Build)
		if d.Comparisons == 0 {
			fmt.Fprintf(&b, "No case's change is established over all %d pairs, so no window can be scored: the effect is below what this run resolves.\n\n", c.Pairs)
		} else {
			fmt.Fprintf(&b, "**Detection rate: %d of %d comparisons = %.1f%%** (95%% lower bound %.1f%%); the other direction %d, missed (same or not yet known) %d. Only cases whose change all pairs together establish are scored.\n\n",
				d.Detected, d.Comparisons, 100*d.Rate, 100*d.RateLow, d.Opposite, d.Missed)
		}
		t := Table{Header: []string{"Case", "Pairs", "Ratio (all pairs)", "CI", "p", "Verdict", "Windows detected"}}
		for _, dc := range d.Cases {
			scored := "not scored"
			if dc.Comparisons > 0 {
				scored = fmt.Sprintf("%d of %d", dc.Detected, dc.Comparisons)
			}
			t.Rows = append(t.Rows, []string{dc.Case, fmt.Sprint(dc.Pairs), fmt.Sprintf("%.3f", dc.Ratio), fmt.Sprintf("%.3f–%.3f", dc.Low, dc.High), pText(dc.P), dc.Verdict, scored})
		}
		writeMarkdownTable(&b, t)
		b.WriteString("\n")
		writeMarkdownTable(&b, windowTable(d.Verdicts))
		b.WriteString("\n")
	}
	io.WriteString(w, b.String())
}

// windowTable is one row per window's comparison.
func windowTable(vs []CalibrationVerdict) Table {
	t := Table{Header: []string{"Case", "Window", "Ratio", "CI", "p", "MDE", "Verdict"}}
	for _, v := range vs {
		t.Rows = append(t.Rows, []string{v.Case, fmt.Sprint(v.Window + 1), fmt.Sprintf("%.3f", v.Ratio), fmt.Sprintf("%.3f–%.3f", v.Low, v.High), pText(v.P), fmt.Sprintf("%.1f%%", 100*v.MDE), v.Verdict})
	}
	return t
}
