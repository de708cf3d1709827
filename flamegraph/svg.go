package flamegraph

import (
	"bufio"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Options control Render and RenderDiff. Zero fields take the defaults.
type Options struct {
	Title       string  // default "Flame Graph" ("Differential Flame Graph")
	Subtitle    string  // optional second line under the title
	Width       int     // image width in pixels; default 1200
	FrameHeight int     // pixels per stack level; default 16
	FontSize    float64 // pixels; default 12
	MinWidthPx  float64 // omit frames narrower than this; default 0.1, negative keeps all
	CountName   string  // what a count is, for tooltips; default "samples"
}

const (
	xpad        = 10   // left and right margin, pixels
	fontWidth   = 0.59 // average character width relative to the font size
	searchColor = "rgb(230,0,230)"
)

//go:embed flamegraph.js
var script string

func (o Options) withDefaults(title string) Options {
	if o.Title == "" {
		o.Title = title
	}
	if o.Width <= 2*xpad {
		o.Width = 1200
	}
	if o.FrameHeight <= 1 {
		o.FrameHeight = 16
	}
	if o.FontSize <= 0 {
		o.FontSize = 12
	}
	if o.MinWidthPx == 0 {
		o.MinWidthPx = 0.1
	}
	if o.CountName == "" {
		o.CountName = "samples"
	}
	return o
}

// Render writes the flame graph of f as SVG: the root "all" at the bottom,
// callees above callers, each frame as wide as its inclusive count, frames
// of one Go package in one colour. The SVG carries a small script for
// click-to-zoom and regexp search (Ctrl-F).
func Render(w io.Writer, f Folded, opts Options) error {
	root := buildTree(f)
	if root.value <= 0 {
		return errors.New("flamegraph: no samples")
	}
	o := opts.withDefaults("Flame Graph")
	boxes := layout(root, xpad, float64(o.Width-2*xpad), o.MinWidthPx)
	info := func(b box) (string, string) {
		return fmt.Sprintf("%s (%s %s, %.2f%%)", b.name, thousands(b.value), o.CountName,
			100*float64(b.value)/float64(root.value)), hotColor(b.name)
	}
	return o.write(w, boxes, root.value, info, [2]string{"#eeeeee", "#eeeeb0"})
}

// RenderDiff writes a differential flame graph: frames laid out by their
// counts in the new profile (After); each frame red where its share of all
// samples grew since the baseline (Before), blue where it shrank, white
// where it held, more saturated the larger the change relative to the
// largest one in the graph. The baseline's counts are first scaled so both
// totals match (difffolded.pl -n). Frames found only in the baseline are
// not drawn. Tooltips give both counts and the change in percent of all
// samples.
func RenderDiff(w io.Writer, d DiffFolded, opts Options) error {
	root := buildTree(d.After())
	if root.value <= 0 {
		return errors.New("flamegraph: no samples in the new profile")
	}
	root.addBefore(d.Before())
	o := opts.withDefaults("Differential Flame Graph")
	boxes := layout(root, xpad, float64(o.Width-2*xpad), o.MinWidthPx)
	after, before := float64(root.value), float64(root.before)
	delta := func(b box) float64 {
		if before == 0 {
			return float64(b.value)
		}
		d := float64(b.value) - float64(b.before)*after/before
		if math.Abs(d) < 1e-9*after { // rounding, not change
			return 0
		}
		return d
	}
	var maxDelta float64
	for _, b := range boxes {
		maxDelta = math.Max(maxDelta, math.Abs(delta(b)))
	}
	info := func(b box) (string, string) {
		var was float64
		if before > 0 {
			was = 100 * float64(b.before) / before
		}
		d := delta(b)
		return fmt.Sprintf("%s (%s %s, %.2f%%; before %s %s, %.2f%%; %+.2f%%)", b.name,
			thousands(b.value), o.CountName, 100*float64(b.value)/after,
			thousands(b.before), o.CountName, was, 100*d/after), diffColor(d, maxDelta)
	}
	return o.write(w, boxes, root.value, info, [2]string{"#f8f8f8", "#e8e8e8"})
}

// write emits the SVG, laid out as flamegraph.pl does.
func (o Options) write(w io.Writer, boxes []box, total int64, info func(box) (title, fill string), bg [2]string) error {
	maxDepth := 0
	for _, b := range boxes {
		maxDepth = max(maxDepth, b.depth)
	}
	fs, fh := o.FontSize, float64(o.FrameHeight)
	ypad1, ypad2 := fs*3, fs*2+10
	if o.Subtitle != "" {
		ypad1 += fs * 2
	}
	width := float64(o.Width)
	height := float64(maxDepth+1)*fh + ypad1 + ypad2
	charW := fs * fontWidth

	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	p(`<?xml version="1.0" standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg version="1.1" width="%s" height="%s" onload="init(evt)" viewBox="0 0 %[1]s %[2]s" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">
<!-- Flame graph rendered by lnbench in the manner of Brendan Gregg's FlameGraph. -->
<defs>
<linearGradient id="background" y1="0" y2="1" x1="0" x2="0"><stop stop-color="%s" offset="5%%"/><stop stop-color="%s" offset="95%%"/></linearGradient>
</defs>
<style type="text/css">
text { font-family: Verdana, "DejaVu Sans", sans-serif; font-size: %spx; fill: rgb(0,0,0); }
#title { text-anchor: middle; font-size: %spx; }
#subtitle { text-anchor: middle; fill: rgb(160,160,160); }
#search, #unzoom { cursor: pointer; }
#search { opacity: 0.1; }
#search:hover, #search.show { opacity: 1; }
#frames > g { cursor: pointer; }
#frames > g:hover > rect { stroke: black; stroke-width: 0.5; }
.hide { display: none; }
.parent { opacity: 0.5; }
</style>
<script type="text/ecmascript"><![CDATA[
var cfg = {xpad: %d, width: %s, total: %d, charw: %s, searchColor: "%s"};
%s]]></script>
`, num(width), num(height), bg[0], bg[1], num(fs), num(fs+5),
		xpad, num(width-2*xpad), total, num(charW), searchColor, script)
	p(`<rect x="0" y="0" width="%s" height="%s" fill="url(#background)"/>
<text id="title" x="%s" y="%s">%s</text>
`, num(width), num(height), num(width/2), num(fs*2), esc(o.Title))
	if o.Subtitle != "" {
		p("<text id=\"subtitle\" x=\"%s\" y=\"%s\">%s</text>\n", num(width/2), num(fs*4), esc(o.Subtitle))
	}
	p(`<text id="details" x="%[1]d" y="%[2]s"> </text>
<text id="unzoom" class="hide" x="%[1]d" y="%[3]s">Reset Zoom</text>
<text id="search" x="%[4]s" y="%[3]s">Search</text>
<text id="matched" x="%[4]s" y="%[2]s"> </text>
<g id="frames">
`, xpad, num(height-ypad2/2), num(fs*2), num(width-xpad-100))
	for _, b := range boxes {
		y2 := height - ypad2 - float64(b.depth)*fh
		y1 := y2 - fh + 1
		title, fill := info(b)
		p(`<g data-s="%d" data-v="%d" data-d="%d"><title>%s</title><rect x="%s" y="%s" width="%s" height="%s" fill="%s" rx="2" ry="2"/><text x="%s" y="%s">%s</text></g>
`, b.start, b.value, b.depth, esc(title), num(b.x), num(y1), num(b.w), num(fh-1), fill,
			num(b.x+3), num(3+(y1+y2)/2), esc(fitLabel(b.name, b.w, charW)))
	}
	p("</g>\n</svg>\n")
	return bw.Flush()
}

// num formats pixels with at most two decimals.
func num(f float64) string {
	return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

func esc(s string) string { return escaper.Replace(s) }

// thousands formats 1234567 as 1,234,567, as flamegraph.pl's tooltips do.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
