package report

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/record/result"
)

func TestMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, fixtureReport()); err != nil {
		t.Fatal(err)
	}
	testsupport.Golden(t, "testdata/summary.md.golden", b.Bytes())
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
	testsupport.Golden(t, "testdata/report.html.golden", b.Bytes())
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
	testsupport.Golden(t, "testdata/results.bench.golden", b.Bytes())
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

func TestCSVGolden(t *testing.T) {
	var b bytes.Buffer
	if err := CSV(&b, fixtureReport()); err != nil {
		t.Fatal(err)
	}
	testsupport.Golden(t, "testdata/summary.csv.golden", b.Bytes())
	// One spec: the Node column names it, no Ratio columns.
	if !strings.Contains(b.String(), ",Case,InvocationCount,Node\n") || !strings.Contains(b.String(), ",1,v0.21.0-beta\n") || strings.Contains(b.String(), "Ratio") {
		t.Errorf("one-spec CSV:\n%s", b.String())
	}
}

// TestSpecsGolden renders a run of two node specs with a baseline in every
// format that has a table.
func TestSpecsGolden(t *testing.T) {
	oldOS, oldArch := goos, goarch
	goos, goarch = "linux", "amd64"
	t.Cleanup(func() { goos, goarch = oldOS, oldArch })
	r := fixtureSpecReport()
	for _, f := range []struct {
		name string
		fn   func(*bytes.Buffer) error
		want []string
	}{
		{"summary-specs.md.golden", func(b *bytes.Buffer) error { return Markdown(b, r) },
			[]string{"| Method | Node | Concurrency | TotalPayments | Mean | Error | StdDev | Median | Payments/s | Ratio | RatioSD | 95% CI | p | n | MDE | Verdict |",
				"| 1.00 | 0.00 | - | - | 4 | - | baseline |", "| 1.30 | 0.12 | 1.28–1.32 | p<0.001 | 4+4 | 2.2% | slower |", "| same |",
				"Design: sequential (one network at a time), 4 launch round(s) in abba order: v0.21.0-beta patched | patched v0.21.0-beta | v0.21.0-beta patched | patched v0.21.0-beta",
				"same: no change larger than 4.7%", "4 launches, mean iteration time per launch: #1 0.1325 s",
				"Node v0.21.0-beta (baseline): lnd v0.21.0-beta, build lnd@v0.21.0-beta, key 3f2a9c1e5b7d",
				"Node patched: lnd src, source /home/dev/lnd @ 9e8d7c6b5a4f (dirty: uncommitted edits)", "tags kvdb_sqlite", "PGO profile c0ffee012345"}},
		{"summary-specs.csv.golden", func(b *bytes.Buffer) error { return CSV(b, r) },
			[]string{"Method,Concurrency,TotalPayments,Iterations,", ",Case,InvocationCount,Node,Ratio,RatioSD,Verdict,RatioP,RatioLow,RatioHigh,Level,NBase,NNew,Paired,MDE,Effect,LaunchesForEffect\n", ",patched,1.30", ",slower,", ",launches,4,4,true,"}},
		{"results-specs.bench.golden", func(b *bytes.Buffer) error { return Bench(b, r) },
			[]string{"BenchmarkAlicePaysBob/Node=patched/Concurrency=10/TotalPayments=4 "}},
		{"report-specs.html.golden", func(b *bytes.Buffer) error { return HTML(b, r, nil) },
			[]string{"<th>Ratio</th><th>RatioSD</th><th>95% CI</th><th>p</th><th>n</th><th>MDE</th><th>Verdict</th>", "<td>baseline</td>", "<h2>Verdicts against the baseline</h2>", "Design: sequential"}},
	} {
		var b bytes.Buffer
		if err := f.fn(&b); err != nil {
			t.Fatal(err)
		}
		testsupport.Golden(t, "testdata/"+f.name, b.Bytes())
		for _, w := range f.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s lacks %q", f.name, w)
			}
		}
	}
}

func TestJSONNamesNodeAndRatio(t *testing.T) {
	var one, two bytes.Buffer
	if err := JSON(&one, fixtureReport()); err != nil {
		t.Fatal(err)
	}
	if err := JSON(&two, fixtureSpecReport()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(one.String(), `"node": "v0.21.0-beta"`) || strings.Contains(one.String(), `"vs_baseline"`) {
		t.Error("one-spec JSON: want the node label and no ratio")
	}
	for _, want := range []string{`"node": "patched"`, `"ratio": 1.30`, `"verdict": "slower"`, `"level": "launches"`, `"mde": 0.02`, `"design": {`, `"order": "abba"`, `"verdict": "baseline"`, `"pgo_hash": "c0ffee0123456789abcdef"`, `"dirty": true`} {
		if !strings.Contains(two.String(), want) {
			t.Errorf("two-spec JSON lacks %s", want)
		}
	}
	// Load reads summary.json back and recomputes the same ratios.
	dir := t.TempDir()
	if err := writeFile(filepath.Join(dir, "summary.json"), func(w io.Writer) error { return JSON(w, fixtureSpecReport()) }); err != nil {
		t.Fatal(err)
	}
	rw, err := result.Create(filepath.Join(dir, "payments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range fixtureSpecRecords() {
		if err := rw.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	back, _, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.BaselineLabel() != "v0.21.0-beta" || back.Cases[2].Ratio == nil || back.Cases[2].Ratio.Verdict != VerdictSlower {
		t.Errorf("loaded back: baseline %q, case %+v", back.BaselineLabel(), back.Cases[2].Ratio)
	}
}
