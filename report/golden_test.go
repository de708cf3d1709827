package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, fixtureReport()); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.md.golden", b.Bytes())
	// The fixture has an outlier, a failure and a drifting case, so the
	// optional columns and the analysis notes must all be there.
	for _, want := range []string{"| Failed | CV | Outliers |", "iteration time grows", "outlier iteration(s)", "1 × NO_ROUTE", "0s │█ █", "## Details"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

func TestHTMLGolden(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, fixtureReport(), nil); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.html.golden", b.Bytes())
	if !strings.Contains(b.String(), "<svg") {
		t.Error("without PNGs the HTML should draw inline SVG")
	}
}

func TestBenchGolden(t *testing.T) {
	oldOS, oldArch := goos, goarch
	goos, goarch = "linux", "amd64" // the golden file must not depend on the test machine
	t.Cleanup(func() { goos, goarch = oldOS, oldArch })
	var b bytes.Buffer
	if err := Bench(&b, fixtureReport()); err != nil {
		t.Fatal(err)
	}
	golden(t, "results.bench.golden", b.Bytes())
}

func TestHTMLEmbedsPlots(t *testing.T) {
	var b bytes.Buffer
	png := []byte("\x89PNG\r\n\x1a\nfake")
	if err := HTML(&b, fixtureReport(), []Plot{{Name: "plot-latency-cdf.png", PNG: png}}); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if !strings.Contains(s, `src="data:image/png;base64,iVBORw0KGgpmYWtl"`) || !strings.Contains(s, "<figcaption>latency cdf</figcaption>") {
		t.Error("PNG not embedded as a data: URI")
	}
	if strings.Contains(s, "<svg") {
		t.Error("SVG fallbacks drawn although PNGs exist")
	}
	for _, ext := range []string{`src="http`, `href="http`, `src="//`, "<script"} {
		if strings.Contains(s, ext) {
			t.Errorf("HTML refers to an external asset or script: %s", ext)
		}
	}
}
