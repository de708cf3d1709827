package report

import (
	"bytes"
	"fmt"
	"html/template"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/lnbench/lnbench/flamegraph"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/record/traces"
	"github.com/lnbench/lnbench/usage"
	"github.com/lnbench/lnbench/usage/cost"
)

// FlameRow is one time slot of the flame graph timeline: the windows of
// every actor that were sampled together, and the throughput measured
// meanwhile.
type FlameRow struct {
	Label          string
	Start, End     time.Time
	Elapsed        float64
	Windows        map[string]traces.Window // by actor
	PaymentsPerSec float64
	Payments       int
	// Usage is each actor's CPU and syncs/s during its window, from
	// resources.jsonl (absent when the run sampled no resources).
	Usage map[string]cost.Usage
}

// alignLine is how a window lies against the iteration it stands for, or
// "" for a window that stands for none (periodic sampling).
func alignLine(w traces.Window) string {
	if a, ok := w.Alignment(); ok {
		return a.String()
	}
	return ""
}

// fillUsage sets each row's per-actor usage over that actor's window.
func fillUsage(rows []FlameRow, samples []usage.Sample, hostCores int) {
	if len(samples) == 0 {
		return
	}
	for i := range rows {
		for a, w := range rows[i].Windows {
			if u, ok := cost.Window(samples, a, w.Start, w.End, hostCores); ok {
				if rows[i].Usage == nil {
					rows[i].Usage = map[string]cost.Usage{}
				}
				rows[i].Usage[a] = u
			}
		}
	}
}

// UsageLine is an actor's usage in a window, e.g. "CPU 98% of 0.5 · 270 syncs/s".
func UsageLine(u cost.Usage) string {
	out := fmt.Sprintf("CPU %.2f cores", u.CPUs)
	if p := u.Percent(); p >= 0 {
		out = fmt.Sprintf("CPU %.0f%% of %g", p, u.Limit)
	}
	if u.SyncsPerSec >= 0 {
		out += fmt.Sprintf(" · %.0f syncs/s", u.SyncsPerSec)
	} else {
		out += " · syncs not counted"
	}
	return out
}

// FlameRows groups windows into rows: a window joins the current row when it
// starts within 2 s of the row and its actor is not in it yet.
func FlameRows(ws []traces.Window, recs []result.Record) []FlameRow {
	sorted := append([]traces.Window(nil), ws...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start.Before(sorted[j].Start) })
	var rows []FlameRow
	for _, w := range sorted {
		n := len(rows)
		if n == 0 || w.Start.Sub(rows[n-1].Start) > 2*time.Second || rows[n-1].Windows[w.Actor].Actor != "" {
			rows = append(rows, FlameRow{Label: w.Label, Start: w.Start, End: w.End, Elapsed: w.Elapsed, Windows: map[string]traces.Window{}})
			n++
		}
		r := &rows[n-1]
		r.Windows[w.Actor] = w
		if w.End.After(r.End) {
			r.End = w.End
		}
	}
	for i := range rows {
		r := &rows[i]
		for _, rec := range recs {
			if rec.Status == result.Succeeded && !rec.End.Before(r.Start) && !rec.End.After(r.End) {
				r.Payments++
			}
		}
		if d := r.End.Sub(r.Start).Seconds(); d > 0 {
			r.PaymentsPerSec = float64(r.Payments) / d
		}
	}
	return rows
}

// WriteFlameTimeline writes, from out/traces.jsonl and the payments:
// flamegraphs.html (one column per actor, one row per window, time going
// down, each row labelled with the throughput measured in it),
// flamegraphs-timeline.svg (the same as one image; PNG too when rsvg-convert
// exists) and <Actor>_traces/diff-first-last.svg per actor. With
// resources.jsonl each window also shows its actor's CPU% (of its limit,
// else of hostCores) and syncs/s meanwhile.
func WriteFlameTimeline(out string, recs []result.Record, hostCores int) error {
	ws, err := traces.ReadIndex(out)
	if err != nil {
		if os.IsNotExist(err) {
			return nil // nothing was sampled
		}
		return err
	}
	rows, actors := FlameRows(ws, recs), traces.Actors(ws)
	samples, err := usage.Load(filepath.Join(out, record.ResourcesFile))
	if err != nil {
		return err
	}
	fillUsage(rows, samples, hostCores)
	diffs := map[string]string{}
	for _, a := range actors {
		if d, err := writeDiff(out, a, ws); err != nil {
			return err
		} else if d != "" {
			diffs[a] = d
		}
	}
	if err := writeFlameTimelineHTML(out, rows, actors, diffs); err != nil {
		return err
	}
	return writeFlameTimelineSVG(out, rows, actors)
}

// writeDiff renders the differential flame graph of an actor's first and
// last windows: red grew, blue shrank.
func writeDiff(out, actor string, ws []traces.Window) (string, error) {
	var mine []traces.Window
	for _, w := range ws {
		if w.Actor == actor {
			mine = append(mine, w)
		}
	}
	if len(mine) < 2 {
		return "", nil
	}
	sort.SliceStable(mine, func(i, j int) bool { return mine[i].Start.Before(mine[j].Start) })
	first, last := mine[0], mine[len(mine)-1]
	a, err := flamegraph.ReadFile(filepath.Join(out, first.Folded))
	if err != nil {
		return "", err
	}
	b, err := flamegraph.ReadFile(filepath.Join(out, last.Folded))
	if err != nil {
		return "", err
	}
	rel := filepath.Join(traces.Dir(actor), "diff-first-last.svg")
	var buf bytes.Buffer
	title := fmt.Sprintf("%s: +%.0f s → +%.0f s (red grew, blue shrank)", actor, first.Elapsed, last.Elapsed)
	if err := flamegraph.RenderDiff(&buf, flamegraph.Diff(a, b), flamegraph.Options{Title: title}); err != nil {
		return "", err
	}
	return rel, os.WriteFile(filepath.Join(out, rel), buf.Bytes(), 0o644)
}

var timelineTmpl = template.Must(template.New("t").Funcs(template.FuncMap{
	"window": func(r FlameRow, a string) traces.Window { return r.Windows[a] },
	"align":  alignLine,
	"usage": func(r FlameRow, a string) string {
		if u, ok := r.Usage[a]; ok {
			return UsageLine(u)
		}
		return ""
	},
}).Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Flame graphs over time</title>
<style>body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px;vertical-align:top}
td.label{white-space:nowrap;font-size:90%}img{width:600px;display:block}</style></head><body>
<h1>Flame graphs over time</h1>
<p>One column per actor, one row per sampling window, time going down. Each row shows the
payments per second completed while it was sampled; each graph, when resources were sampled,
its actor's CPU (% of its limit, else of the host's cores) and fsync + fdatasync calls per second meanwhile.
A window made for one iteration says how its profiled time lies against the iteration: pprof profiles
in whole-second slices, so its start and end are off the iteration's by up to half a slice.
Click a graph to open it (zoom and search work there).</p>
{{if .Diffs}}<p>Differential, first → last window (red grew, blue shrank):
{{range $a, $d := .Diffs}}<a href="{{$d}}">{{$a}}</a> {{end}}</p>{{end}}
<table><tr><th>window</th>{{range .Actors}}<th>{{.}}</th>{{end}}</tr>
{{range $r := .Rows}}<tr><td class="label">+{{printf "%.0f" $r.Elapsed}} s<br>{{$r.Label}}<br><b>{{printf "%.1f" $r.PaymentsPerSec}} payments/s</b><br>({{$r.Payments}} in {{printf "%.1f" ($r.End.Sub $r.Start).Seconds}} s)</td>
{{range $a := $.Actors}}<td>{{with window $r $a}}{{if .SVG}}<a href="{{.SVG}}"><img src="{{.SVG}}" alt="{{.Actor}}"></a><small>{{with usage $r $a}}<b>{{.}}</b><br>{{end}}{{with align .}}{{.}}<br>{{end}}{{.Samples}} samples · <a href="{{.Profile}}">pprof</a> · <a href="{{.Folded}}">folded</a></small>{{end}}{{end}}</td>{{end}}</tr>
{{end}}</table></body></html>
`))

func writeFlameTimelineHTML(out string, rows []FlameRow, actors []string, diffs map[string]string) error {
	var buf bytes.Buffer
	if err := timelineTmpl.Execute(&buf, map[string]any{"Rows": rows, "Actors": actors, "Diffs": diffs}); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "flamegraphs.html"), buf.Bytes(), 0o644)
}

// writeFlameTimelineSVG stacks the window graphs into one image (what the
// original did with ImageMagick's crop and append).
func writeFlameTimelineSVG(out string, rows []FlameRow, actors []string) error {
	const cellW, cellH, labelW, headH = 600, 330, 170, 30
	w, h := labelW+cellW*len(actors), headH+cellH*len(rows)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="%d" height="%d" font-family="sans-serif" font-size="13">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", w, h)
	for i, a := range actors {
		fmt.Fprintf(&b, `<text x="%d" y="20" font-weight="bold">%s</text>`+"\n", labelW+i*cellW+10, template.HTMLEscapeString(a))
	}
	for ri, r := range rows {
		y := headH + ri*cellH
		fmt.Fprintf(&b, `<text x="5" y="%d">+%.0f s</text><text x="5" y="%d">%.1f payments/s</text>`+"\n", y+20, r.Elapsed, y+38, r.PaymentsPerSec)
		for ai, a := range actors {
			if win, ok := r.Windows[a]; ok {
				fmt.Fprintf(&b, `<image x="%d" y="%d" width="%d" height="%d" preserveAspectRatio="xMinYMax meet" href="%s" xlink:href="%s"/>`+"\n",
					labelW+ai*cellW, y, cellW, cellH, win.SVG, win.SVG)
				if u, ok := r.Usage[a]; ok {
					fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12">%s</text>`+"\n", labelW+ai*cellW+10, y+16, template.HTMLEscapeString(UsageLine(u)))
				}
				if al := alignLine(win); al != "" {
					fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11">%s</text>`+"\n", labelW+ai*cellW+10, y+30, template.HTMLEscapeString(al))
				}
			}
		}
	}
	b.WriteString("</svg>\n")
	path := filepath.Join(out, "flamegraphs-timeline.svg")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return err
	}
	if rsvg, err := exec.LookPath("rsvg-convert"); err == nil {
		cmd := exec.Command(rsvg, "--unlimited", "-o", "flamegraphs-timeline.png", "flamegraphs-timeline.svg")
		cmd.Dir = out
		_ = cmd.Run() // the SVG is the product; the PNG is a convenience
	}
	return nil
}
