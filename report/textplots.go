package report

import (
	"fmt"
	"strings"

	"github.com/lnbench/lnbench/analysis"
)

// Unicode plots for markdown and terminals: no image needed to see the
// shape of a distribution or a throughput dip.

var (
	shades = []rune(" ░▒▓█")
	bars   = []rune("▁▂▃▄▅▆▇█")
)

// level maps v in (0, top] onto 1..n (0 stays 0), rounding up so any
// non-zero count stays visible.
func level(v, top, n int) int {
	if v <= 0 || top <= 0 {
		return 0
	}
	return min(n, (v*n+top-1)/top)
}

// Heatmap draws one row per iteration and one column per latency bin of
// the case's histogram, shaded by the row's share (rows are normalised so
// an interrupted iteration still shows its shape), then the whole
// histogram as a bar row.
func Heatmap(c analysis.Case) []string {
	h := c.LatencyHistogram
	if len(h.Counts) == 0 {
		return nil
	}
	lo, _ := h.Bin(0)
	_, hi := h.Bin(len(h.Counts) - 1)
	lines := []string{fmt.Sprintf("latency %.1f … %.1f ms, %d bins of %.2f ms; one row per measured iteration", lo, hi, len(h.Counts), h.Width)}
	row := func(label string, counts []int, glyphs []rune, zero rune) {
		top, total := 0, 0
		for _, n := range counts {
			top, total = max(top, n), total+n
		}
		var b strings.Builder
		for _, n := range counts {
			if l := level(n, top, len(glyphs)); l > 0 {
				b.WriteRune(glyphs[l-1])
			} else {
				b.WriteRune(zero)
			}
		}
		lines = append(lines, fmt.Sprintf("%6s │%s│ %d", label, b.String(), total))
	}
	for _, it := range c.Iterations {
		if len(it.LatencyCounts) == len(h.Counts) {
			row(fmt.Sprintf("#%d", it.Index), it.LatencyCounts, shades[1:], ' ')
		}
	}
	row("all", h.Counts, bars, ' ')
	return lines
}

// Sparkline draws successful payments per second, wrapped every width
// seconds, each line labelled with its starting second.
func Sparkline(perSec []int, width int) []string {
	top := 0
	for _, n := range perSec {
		top = max(top, n)
	}
	var lines []string
	for start := 0; start < len(perSec); start += width {
		var b strings.Builder
		for _, n := range perSec[start:min(start+width, len(perSec))] {
			if l := level(n, top, len(bars)); l > 0 {
				b.WriteRune(bars[l-1])
			} else {
				b.WriteRune(' ')
			}
		}
		lines = append(lines, fmt.Sprintf("%4ds │%s", start, b.String()))
	}
	return lines
}

// SparklineFaults is Sparkline with, under each row a fault touches, a
// row marking the seconds it lasted (^) and those until a restarted node's
// channels were active again (~).
func SparklineFaults(perSec []int, width int, spans []faultSpan) []string {
	rows := Sparkline(perSec, width)
	if len(spans) == 0 {
		return rows
	}
	var out []string
	for r, row := range rows {
		out = append(out, row)
		var b strings.Builder
		marked := false
		for i := r * width; i < min((r+1)*width, len(perSec)); i++ {
			c := " "
			in := func(from, to float64) bool { return float64(i+1) > from && float64(i) < to }
			for _, s := range spans {
				switch {
				case in(s.From, s.To):
					c, marked = "^", true
				case in(s.To, s.Effect) && c == " ":
					c, marked = "~", true
				}
			}
			b.WriteString(c)
		}
		if marked {
			out = append(out, "fault │"+strings.TrimRight(b.String(), " "))
		}
	}
	return out
}
