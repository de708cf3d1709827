package report

import (
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
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

// htmlSection is a Section with its blocks made ready for the page.
type htmlSection struct {
	Title  string
	Blocks []htmlBlock
}

// htmlBlock is a Block with what only a page can draw: a timeline as SVG
// (when there are no PNG plots) and the plots as data: URIs.
type htmlBlock struct {
	Block
	SVG    template.HTML
	Images []htmlPlot
}

// HTML writes a self-contained page: every section of the summary, page-only
// detail included, the PNG plots as data: URIs after the latency table, and
// inline SVG charts when there are no PNGs. No external assets, so the file
// can be mailed or attached to a CI run and opened anywhere.
func HTML(w io.Writer, r Report, plots []Plot) error {
	data := struct {
		Name     string
		Sections []htmlSection
		Plots    bool
	}{Name: r.Scenario.Name, Plots: len(plots) > 0}
	for _, s := range withPlots(Sections(r), plots) {
		hs := htmlSection{Title: s.Title}
		for _, b := range s.Blocks {
			hs.Blocks = append(hs.Blocks, htmlBlockOf(b, data.Plots))
		}
		data.Sections = append(data.Sections, hs)
	}
	return htmlTmpl.Execute(w, data)
}

// withPlots puts the Plots section after the latency table: the plots are
// files of the folder, not part of the summary the other writers show.
func withPlots(secs []Section, plots []Plot) []Section {
	if len(plots) == 0 {
		return secs
	}
	at := len(secs)
	for i, s := range secs {
		if s.Title == latencyTitle {
			at = i + 1
		}
	}
	return slices.Insert(secs, at, Section{Title: "Plots", Blocks: []Block{{Figures: plots}}})
}

// htmlBlockOf draws a timeline as SVG, or as the sparkline when the PNG
// plots already chart it, and encodes the figures.
func htmlBlockOf(b Block, havePlots bool) htmlBlock {
	hb := htmlBlock{Block: b}
	if t := b.Timeline; t != nil {
		if havePlots {
			hb.Timeline, hb.Pre = nil, t.sparkline()
		} else {
			hb.SVG = barsSVG(t.PerSecond, 640, 80, t.Faults)
		}
	}
	for _, p := range b.Figures {
		hb.Images = append(hb.Images, htmlPlot{Title: plotTitle(p.Name),
			Src: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(p.PNG))})
	}
	return hb
}

// plotTitle turns plot-payments-per-sec-Concurrency.png into "payments per sec Concurrency".
func plotTitle(name string) string {
	s := strings.TrimSuffix(strings.TrimPrefix(name, "plot-"), ".png")
	return strings.ReplaceAll(s, "-", " ")
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
