package analysis

import (
	"fmt"
	"sort"
	"strings"
)

// notes are the short analysis lines of a case, BenchmarkDotNet-style:
// data problems first, then what limits how far the numbers can be trusted.
func notes(c Case) []string {
	out := append([]string(nil), c.Warnings...)
	out = append(out, c.Time.Warnings...) // includes "N=3: too few samples…"
	s := c.Spread
	if c.Time.N >= 2 && s.Stability != "stable" {
		out = append(out, fmt.Sprintf("CV %.1f%% (%s): iteration times vary, so small changes between runs are hard to tell from noise; raise IterationCount or find the noise source", 100*s.CV, s.Stability))
	}
	if d := s.Drift; d != nil && d.Significant(c.Time.N) {
		verb := "grows"
		if d.Slope < 0 {
			verb = "shrinks"
		}
		out = append(out, fmt.Sprintf("iteration time %s %.1f%% per iteration (%s, R²=%.2f): the system drifts during the run (growing state? too short a warm-up?)",
			verb, 100*abs(d.Relative), pValue(d.P), d.R2))
	}
	if len(s.Outliers) > 0 {
		var list []string
		for _, o := range s.Outliers {
			kind := "mild"
			if o.Severe {
				kind = "severe"
			}
			list = append(list, fmt.Sprintf("#%d %.4g s (%s)", o.Iteration, o.Seconds, kind))
		}
		out = append(out, fmt.Sprintf("%d outlier iteration(s) (%d mild, %d severe), kept in the statistics: %s",
			len(s.Outliers), s.MildOutliers, s.SevereOutliers, strings.Join(list, ", ")))
	}
	if c.Succeeded > 0 && c.Succeeded < 1000 {
		out = append(out, fmt.Sprintf("p99.9 latency rests on %d payments (< 1000): it is an interpolation near the maximum", c.Succeeded))
	}
	return out
}

// failureLine is the failure count with the rate of each reason, most frequent first.
func failureLine(c Case) string {
	keys := make([]string, 0, len(c.FailureReasons))
	for k := range c.FailureReasons {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := c.FailureReasons[keys[i]], c.FailureReasons[keys[j]]
		return a > b || a == b && keys[i] < keys[j]
	})
	var parts []string
	for _, k := range keys {
		name := k
		if name == "" {
			name = "unknown"
		}
		parts = append(parts, fmt.Sprintf("%d × %s (%.1f%%)", c.FailureReasons[k], name, 100*float64(c.FailureReasons[k])/float64(c.Payments)))
	}
	return fmt.Sprintf("%d of %d payments failed (%.1f%%): %s", c.Failed, c.Payments, 100*c.ErrorRate(), strings.Join(parts, ", "))
}

// pValue prints p the way papers do: tiny values as a bound, not as 0.
func pValue(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
