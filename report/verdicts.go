package report

import (
	"fmt"
	"strings"
)

// VerdictLines are one line per case compared with the baseline: its
// verdict with the evidence (interval, p, launches, MDE), then its notes
// indented. Empty without a baseline.
func VerdictLines(r Report) []string {
	var out []string
	for _, c := range r.Cases {
		rt := c.Ratio
		if rt == nil || rt.Verdict == VerdictBaseline {
			continue
		}
		units := fmt.Sprintf("%d+%d launches", rt.NBase, rt.NNew)
		if rt.Paired {
			units += " paired by round"
		}
		if rt.Level == LevelIterations {
			units = fmt.Sprintf("%d+%d iterations of one launch", rt.NBase, rt.NNew)
		}
		alpha := r.verdictConfig().alpha
		if rt.Alpha > 0 {
			alpha = rt.Alpha
		}
		line := fmt.Sprintf("%s: %s, ratio %.3f", c.ID, rt.Verdict, rt.Of)
		if rt.Metric == MetricP50 {
			line += " of p50 latency"
		}
		if rt.Low > 0 {
			p := pText(rt.P)
			if rt.Duet != nil {
				p = fmt.Sprintf("alone; duet %.3f, %s", rt.Duet.Of, pText(rt.Duet.P))
			}
			if rt.PHolm > 0 {
				p += ", Holm " + pText(rt.PHolm)
			}
			line += fmt.Sprintf(" (%s %.3f–%.3f, %s, %s", ciLabel(alpha), rt.Low, rt.High, p, units)
			if rt.MDE > 0 {
				line += fmt.Sprintf(", MDE %.1f%%", 100*rt.MDE)
			}
			line += ")"
		} else {
			line += " (" + units + ")"
		}
		out = append(out, line)
		for _, n := range rt.Notes {
			out = append(out, "  "+n)
		}
	}
	return out
}

// LaunchLine lists a case's per-launch mean iteration times ("" with one launch).
func LaunchLine(c Row) string {
	if len(c.Launches) < 2 {
		return ""
	}
	var parts []string
	for _, l := range c.Launches {
		parts = append(parts, fmt.Sprintf("#%d %.4g s", l.Launch+1, l.MeanSeconds))
	}
	return fmt.Sprintf("%d launches, mean iteration time per launch: %s", len(c.Launches), strings.Join(parts, ", "))
}
