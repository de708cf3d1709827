package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/flamegraph"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/record/traces"
	"github.com/lnbench/lnbench/scenario"
)

// WriteSoak analyses the soak run in dir (its only case is s's first) and
// writes soak.md and soak.json.
func WriteSoak(dir string, s scenario.Scenario) (analysis.Soak, error) {
	recs, err := result.ReadFile(filepath.Join(dir, record.PaymentsFile))
	if err != nil {
		return analysis.Soak{}, err
	}
	ws, _ := traces.ReadIndex(dir) // a soak without windows still has a drift verdict
	var windows [][2]time.Time
	for _, w := range ws {
		windows = append(windows, [2]time.Time{w.Start, w.End})
	}
	c := s.Cases()[0]
	soak := analysis.AnalyzeSoak(recs, c.ID(), c.Workload.TotalPayments, windows)
	var b strings.Builder
	fmt.Fprintf(&b, "# Soak: %s\n\nVerdict: **%s**\n\n", c.ID(), soak.Verdict)
	for _, n := range soak.Notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	b.WriteString("\n| iteration | +s | cumulative payments | payments/s | sampled |\n|---:|---:|---:|---:|---|\n")
	var t0 time.Time
	if len(soak.Points) > 0 {
		t0 = soak.Points[0].Start
	}
	for _, p := range soak.Points {
		fmt.Fprintf(&b, "| %d | %.0f | %d | %.1f | %v |\n", p.Iteration, p.Start.Sub(t0).Seconds(), p.Cumulative, p.PaymentsPerSec, p.Sampled)
	}
	b.WriteString(hotFrames(dir, ws))
	if err := os.WriteFile(filepath.Join(dir, "soak.md"), []byte(b.String()), 0o644); err != nil {
		return soak, err
	}
	data, err := json.MarshalIndent(soak, "", "  ")
	if err != nil {
		return soak, err
	}
	return soak, os.WriteFile(filepath.Join(dir, "soak.json"), data, 0o644)
}

// hotFrames lists each actor's three hottest frames (self time) over all windows.
func hotFrames(dir string, ws []traces.Window) string {
	var b strings.Builder
	for _, actor := range traces.Actors(ws) {
		var all flamegraph.Folded
		for _, w := range ws {
			if w.Actor != actor {
				continue
			}
			if f, err := flamegraph.ReadFile(filepath.Join(dir, w.Folded)); err == nil {
				all = append(all, f...)
			}
		}
		fmt.Fprintf(&b, "\n## %s: hottest frames (self samples, all windows)\n\n", actor)
		for _, fs := range flamegraph.TopSelf(all, 3) {
			fmt.Fprintf(&b, "- `%s`: %d samples (%.1f%%)\n", fs.Name, fs.Samples, fs.Percent)
		}
	}
	return b.String()
}
