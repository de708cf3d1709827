package report

import (
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
)

//go:embed html.tmpl
var htmlSource string

var htmlTmpl = template.Must(template.New("html").Parse(htmlSource))

// Plot is a PNG drawn by plots.R, embedded into the HTML report.
type Plot struct {
	Name string // file name, e.g. plot-latency-cdf.png
	PNG  []byte
}

// LoadPlots reads the plot PNGs of dir (none when R did not run).
func LoadPlots(dir string) []Plot {
	var out []Plot
	for _, name := range PlotFiles(dir) {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			out = append(out, Plot{Name: name, PNG: b})
		}
	}
	return out
}

type htmlPlot struct {
	Title string
	Src   template.URL // data: URI; template.URL keeps html/template from rejecting it
}

type htmlCase struct {
	Row                Row
	Line, Caption      string
	Launches           string // per-launch means ("" with one launch)
	Iterations         Table
	Heatmap, Sparkline []string
	Timeline           []int
	TimelineSVG        template.HTML
	Faults             []string
}

// HTML writes a self-contained page: tables, the PNG plots as data: URIs,
// and inline SVG charts when there are no PNGs. No external assets, so the
// file can be mailed or attached to a CI run and opened anywhere.
func HTML(w io.Writer, r Report, plots []Plot) error {
	data := struct {
		R                       Report
		Env                     []string
		Summary, Latency, Setup Table
		Plots                   []htmlPlot
		Cases                   []htmlCase
		Warnings                []string
		CPUShare                float64
		Resources               []ResourceSection
		ResourceLegend          []string
		Overhead                []string
		Faults                  Table
		FaultNotes              []string
		Verdicts                []string
	}{R: r, Env: EnvBlock(r), Summary: SummaryTable(r), Latency: LatencyTable(r), Setup: setupTable(r),
		Warnings: AllWarnings(r), CPUShare: 100 * r.HarnessCPUShare(), Resources: ResourceSections(r), Verdicts: VerdictLines(r)}
	if len(r.Faults) > 0 {
		data.Faults, data.FaultNotes = FaultsTable(r), FaultNotes(r)
	}
	data.ResourceLegend = resourceLegend(data.Resources)
	for _, o := range r.SamplingOverhead {
		data.Overhead = append(data.Overhead, OverheadLine(o))
	}
	for _, p := range plots {
		data.Plots = append(data.Plots, htmlPlot{Title: plotTitle(p.Name),
			Src: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(p.PNG))})
	}
	for _, c := range r.Cases {
		data.Cases = append(data.Cases, htmlCase{Row: c, Line: IterationLine(c), Launches: LaunchLine(c), Caption: TimelineCaption(c),
			Iterations: iterationTable(c), Heatmap: Heatmap(c.Case), Sparkline: SparklineFaults(c.Timeline, 60, faultSpans(r, c.ID)),
			Timeline: c.Timeline, TimelineSVG: barsSVG(c.Timeline, 640, 80, faultSpans(r, c.ID)), Faults: CaseFaultLines(r, c.ID)})
	}
	return htmlTmpl.Execute(w, data)
}

// plotTitle turns plot-payments-per-sec-Concurrency.png into "payments per sec Concurrency".
func plotTitle(name string) string {
	s := strings.TrimSuffix(strings.TrimPrefix(name, "plot-"), ".png")
	return strings.ReplaceAll(s, "-", " ")
}

func iterationTable(c Row) Table {
	t := Table{Header: []string{"Iteration", "Time (s)", "Payments", "Succeeded", "Payments/s", "p50 (ms)", "p99 (ms)", "Complete"}}
	for _, it := range c.Iterations {
		t.Rows = append(t.Rows, []string{fmt.Sprint(it.Index), fmt.Sprintf("%.4f", it.Seconds), fmt.Sprint(it.Payments),
			fmt.Sprint(it.Succeeded), fmt.Sprintf("%.2f", it.PaymentsPerSec), f1(it.P50Ms), f1(it.P99Ms), fmt.Sprint(it.Complete)})
	}
	return t
}

// barsSVG draws counts as a bar chart: the fallback for the throughput
// timeline when R is not installed, each fault's span (seconds on the
// same axis) shaded behind the bars. Only numbers are interpolated.
func barsSVG(counts []int, w, h int, spans []faultSpan) template.HTML {
	top := 0
	for _, n := range counts {
		top = max(top, n)
	}
	if len(counts) == 0 || top == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img">`, w, h, w, h)
	bw := float64(w) / float64(len(counts))
	shade := func(from, to, opacity float64) {
		x0, x1 := max(0, from*bw), min(float64(w), to*bw)
		if x1 > x0 {
			fmt.Fprintf(&b, `<rect x="%.2f" y="0" width="%.2f" height="%d" fill="firebrick" fill-opacity="%.2f"></rect>`, x0, x1-x0, h, opacity)
		}
	}
	for _, s := range spans {
		shade(s.From, s.To, 0.2)
		shade(s.To, s.Effect, 0.08)
	}
	for i, n := range counts {
		bh := float64(h-12) * float64(n) / float64(top)
		fmt.Fprintf(&b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="steelblue"><title>%d s: %d</title></rect>`,
			float64(i)*bw, float64(h)-bh, max(bw-1, 0.5), bh, i, n)
	}
	fmt.Fprintf(&b, `<text x="2" y="10" font-size="10">peak %d/s</text></svg>`, top)
	return template.HTML(b.String())
}

// faultSpan is a fault's interval in seconds on a case's timeline: From
// its start To its end, then on until Effect (a restarted node's channels
// active again; Effect = To when nothing followed).
type faultSpan struct{ From, To, Effect float64 }

// faultSpans are the spans of the case's faults that took effect; a fault
// without an end runs past the end of any chart.
func faultSpans(r Report, caseID string) []faultSpan {
	var out []faultSpan
	for _, f := range r.Faults {
		if f.Case != caseID || f.Start.IsZero() { // never took effect
			continue
		}
		s := faultSpan{From: f.StartOffset, To: 1 << 30, Effect: 1 << 30}
		if f.EndOffset != nil {
			s.To = *f.EndOffset
			s.Effect = max(s.To, f.StartOffset+f.EffectEnd.Sub(f.Start).Seconds())
		}
		out = append(out, s)
	}
	return out
}
