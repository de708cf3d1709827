package report

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage"
)

// TestResourcesGolden renders the resources fixture's tables in every
// format from the one model.
func TestResourcesGolden(t *testing.T) {
	r := fixtureResourceReport()
	recs, _ := resourceFixture()
	js := func(b *bytes.Buffer) error {
		enc := json.NewEncoder(b)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"resources": r.Resources, "sampling_overhead": r.SamplingOverhead})
	}
	for _, f := range []struct {
		name string
		fn   func(*bytes.Buffer) error
		want []string
	}{
		{"summary-resources.md.golden", func(b *bytes.Buffer) error { return Markdown(b, r) }, []string{
			"## Resources\n\n### Concurrency=10/Storage=disk/ResourceSampling=on\n\n| Actor | CPU ms/payment | CPU (cores) | CPU of limit | RSS peak (MiB) | Syncs/payment | Syncs/s | Written KiB/payment | DB growth (KiB) | DB growth B/payment |",
			"| bob | 25.49 | 0.490 | 98% of 0.5 | 216.3 | 14.00 | 269.2 | 60.0 | 4096 | 6776 |",
			"| 98% of 0.5 |",
			"- Verdict: bob CPU 98% of its 0.5-CPU limit; disk at 31% of its sync ceiling: CPU-bound at bob.",
			"- Sync ceiling (disk): probe 904 syncs/s ÷ bob's 14.00 syncs/payment = 64.6 payments/s; measured 19.77 payments/s (31% of the ceiling).",
			"- Harness CPU: 1.46% of the nodes' CPU (goal ≤ 2%); sampler 0.39%.",
			"- Resource sampling was off for this case (ResourceSampling=off): no figures.",
			// tmpfs: nothing written, so no Written column and one line why.
			"### Concurrency=10/Storage=tmpfs/ResourceSampling=on\n\n| Actor | CPU ms/payment | CPU (cores) | CPU of limit | RSS peak (MiB) | Syncs/payment | Syncs/s | DB growth (KiB) | DB growth B/payment |",
			"- Block writes: none (the data dirs are on tmpfs, which writes no blocks), so no Written column.",
			"## Sampling overhead\n\n- Concurrency=10/Storage=disk: payments/s with sampling on / off = ",
			"within noise",
		}},
		// The terminal table has no golden file: its environment block is live.
		{"", func(b *bytes.Buffer) error { return Text(b, r) }, []string{
			"Concurrency=10/Storage=disk/ResourceSampling=on: harness CPU 1.46% of the nodes'",
		}},
		{"resources.csv.golden", func(b *bytes.Buffer) error { return ResourcesCSV(b, r) }, []string{
			"Concurrency=10/Storage=disk/ResourceSampling=on,bob,node,cgroup-v1,",
		}},
		{"resources-timeline.csv.golden", func(b *bytes.Buffer) error { return ResourceTimelineCSV(b, r, recs) }, []string{
			"case,actor,role,second,interval_s,cpu_cores,cpu_limit,cpu_percent,syncs_per_second\n",
			"Concurrency=10/Storage=disk/ResourceSampling=on,bob,node,1,1,0.49,0.5,98,",
		}},
		{"resources.json.golden", js, []string{`"bound": "cpu"`, `"actor": "bob"`, `"cpu_limit": 0.5`, `"busiest_node": "bob"`, `"harness_share": 0.0146`}},
		{"report-resources.html.golden", func(b *bytes.Buffer) error { return HTML(b, r, nil) }, []string{
			"<h2>Resources</h2>", "<th>Syncs/payment</th>", "<li>Verdict: bob CPU 98% of its 0.5-CPU limit; disk at 31% of its sync ceiling: CPU-bound at bob.</li>",
			"<h2>Sampling overhead</h2>", "<li>Harness CPU: 1.46% of the nodes&#39; CPU (goal ≤ 2%); sampler 0.39%.</li>",
		}},
	} {
		var b bytes.Buffer
		if err := f.fn(&b); err != nil {
			t.Fatal(err)
		}
		if f.name != "" {
			testsupport.Golden(t, "testdata/"+f.name, b.Bytes())
		}
		for _, w := range f.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s lacks %q", f.name, w)
			}
		}
	}
}

// TestResourcesHiddenColumns: with no sync counter, no block I/O and no
// data dir sizes, those columns go and one line each says why.
func TestResourcesHiddenColumns(t *testing.T) {
	r := fixtureResourceReport()
	recs, samples := resourceFixture()
	for i := range samples {
		samples[i].SyncsCounted, samples[i].Syncs, samples[i].WriteBytes, samples[i].DataBytes = false, 0, 0, 0
	}
	SummarizeResources(&r, samples, recs)
	var b bytes.Buffer
	if err := Markdown(&b, r); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{
		"| Actor | CPU ms/payment | CPU (cores) | CPU of limit | RSS peak (MiB) |\n",
		"- Sync ceiling: unknown (no node's syncs were counted).",
		"- Verdict: bob CPU 98% of its 0.5-CPU limit; disk sync ceiling unknown (no node's syncs were counted): CPU-bound at bob.",
		"- Syncs: not counted for any actor (no sync counter was attached; the run's warnings say why), so no syncs columns and no ceiling.",
		"- Block writes: none (the collector counted no block writes), so no Written column.",
		"- DB growth: data dir sizes were not sampled at the case's start and end.",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if strings.Contains(s, "Syncs/payment |") || strings.Contains(s, "Written") && !strings.Contains(s, "no Written column") {
		t.Error("an uninformative column is shown")
	}
}

// TestNoResourcesNoSection: a run without resources.jsonl or on/off pairs
// renders as before.
func TestNoResourcesNoSection(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, fixtureReport()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Resources") || strings.Contains(b.String(), "Sampling overhead") {
		t.Error("resources section without samples")
	}
}

// TestLoadRecomputesResources: `lnbench report DIR` reads resources.jsonl
// back and rebuilds the same tables; WriteAll writes the resource CSVs.
func TestLoadRecomputesResources(t *testing.T) {
	want := fixtureResourceReport()
	recs, samples := resourceFixture()
	dir := t.TempDir()
	if err := writeFile(filepath.Join(dir, "summary.json"), func(w io.Writer) error { return JSON(w, want) }); err != nil {
		t.Fatal(err)
	}
	rw, err := result.Create(filepath.Join(dir, "payments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if err := rw.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	rw.Close()
	uw, err := usage.Create(filepath.Join(dir, usage.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range samples {
		if err := uw.Write(s); err != nil {
			t.Fatal(err)
		}
	}
	uw.Close()
	got, gotRecs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := Markdown(&a, want); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&b, got); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("regenerated summary differs:\n%s", b.String())
	}
	t.Setenv("PATH", "") // no R: the CSVs are the product here
	if err := WriteAll(dir, got, gotRecs, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ResourcesCSVName, ResourceTimelineCSVName} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() < 100 {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A corrupt stream is a warning; the payment reports stand.
	if err := os.WriteFile(filepath.Join(dir, usage.FileName), []byte("{\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, err = Load(dir)
	if err != nil || len(got.Cases) != 4 || got.Resources != nil {
		t.Fatalf("corrupt resources.jsonl: %v, %d cases, %d resources", err, len(got.Cases), len(got.Resources))
	}
	if w := strings.Join(got.AnalysisWarnings, "\n"); !strings.Contains(w, "resource samples not analysed: resources.jsonl line 1") {
		t.Errorf("warnings: %s", w)
	}
}

// TestSamplingOverheadVerdicts pairs cases by their params but
// ResourceSampling and tests the per-iteration payments/s.
func TestSamplingOverheadVerdicts(t *testing.T) {
	row := func(sampling string, pps ...float64) Row {
		c := Row{Params: []scenario.Value{{Name: "Concurrency", Value: "10"}, {Name: "ResourceSampling", Value: sampling}}}
		c.ID = "Concurrency=10/ResourceSampling=" + sampling
		for i, p := range pps {
			c.Iterations = append(c.Iterations, analysis.Iteration{Index: i, PaymentsPerSec: p, Complete: true, Seconds: 1})
			c.PaymentsPerSec += p / float64(len(pps))
		}
		return c
	}
	on := []float64{18, 18.2, 18.1, 17.9, 18.3, 18, 18.1, 17.8}
	tests := []struct {
		on, off []float64
		verdict string
		ratio   float64
	}{
		{on, []float64{20, 20.2, 20.1, 19.9, 20.3, 20, 20.1, 19.8}, VerdictSlower, 0.9},
		{on, []float64{18.1, 18, 17.9, 18.2, 18, 18.3, 17.8, 18.1}, VerdictNoise, 1},
		{on[:3], []float64{20, 20.2, 20.1}, VerdictTooFew, 0.9}, // 3 against 3 never reaches p < 0.05
	}
	for _, tt := range tests {
		r := Report{Cases: []Row{row("on", tt.on...), row("off", tt.off...)}}
		fillSamplingOverhead(&r)
		if len(r.SamplingOverhead) != 1 {
			t.Fatalf("overhead %+v", r.SamplingOverhead)
		}
		o := r.SamplingOverhead[0]
		if o.Verdict != tt.verdict || math.Abs(o.Ratio-tt.ratio) > 0.01 || o.Case != "Concurrency=10" {
			t.Errorf("off %v: %+v, want %s at ratio %.2f", tt.off, o, tt.verdict, tt.ratio)
		}
	}
	// Without an off case there is nothing to compare.
	r := Report{Cases: []Row{row("on", on...)}}
	fillSamplingOverhead(&r)
	if r.SamplingOverhead != nil {
		t.Errorf("overhead without an off case: %+v", r.SamplingOverhead)
	}
}

// TestHarnessProfileNamed: a run with --harness-profile names its profile
// in the markdown and HTML reports (JSON carries the field).
func TestHarnessProfileNamed(t *testing.T) {
	r := fixtureResourceReport()
	r.HarnessProfile = "harness.cpu.pprof (top 20 functions in harness-profile.txt)"
	var md, html bytes.Buffer
	if err := Markdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&html, r, nil); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"markdown": md.String(), "html": html.String()} {
		if !strings.Contains(out, "Harness CPU profile: harness.cpu.pprof (top 20 functions in harness-profile.txt).") {
			t.Errorf("%s does not name the harness profile", name)
		}
	}
	r.HarnessProfile = ""
	md.Reset()
	if err := Markdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "Harness CPU profile") {
		t.Error("markdown names a harness profile the run did not take")
	}
}

// TestWritesNotMeasurable: an actor whose written bytes had no source on
// the host says "not measurable" in every format, never 0.
func TestWritesNotMeasurable(t *testing.T) {
	r := fixtureResourceReport()
	recs, samples := resourceFixture()
	for i := range samples {
		if samples[i].Actor == "btcd" || samples[i].Actor == "harness" {
			samples[i].IOSource, samples[i].WriteBytes = usage.IONone, 0
		} else {
			samples[i].IOSource = usage.IOProc
		}
	}
	SummarizeResources(&r, samples, recs)
	var md, csv, js, html bytes.Buffer
	if err := Markdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := ResourcesCSV(&csv, r); err != nil {
		t.Fatal(err)
	}
	if err := JSON(&js, r); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&html, r, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		format, out string
		want        []string
	}{
		{"markdown", md.String(), []string{"| btcd | ", " | not measurable |", "- Block writes: not measurable on this host for btcd, harness (its cgroup's block-I/O counters listed no device and /proc/<pid>/io of its processes was unreadable)."}},
		{"csv", csv.String(), []string{",WriteBytes,WriteBytesPerPayment,WriteSource,", ",btcd,chain,cgroup-v1,", ",NA,NA,not measurable on this host,", ",proc-io,"}},
		{"json", js.String(), []string{`"write_bytes_not_measurable": true`, `"write_source": "proc-io"`}},
		{"html", html.String(), []string{"<td>not measurable</td>", "not measurable on this host for btcd, harness"}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.out, w) {
				t.Errorf("%s lacks %q", c.format, w)
			}
		}
	}

	// No actor measurable: no column, one line.
	for i := range samples {
		samples[i].IOSource, samples[i].WriteBytes = usage.IONone, 0
	}
	SummarizeResources(&r, samples, recs)
	md.Reset()
	Markdown(&md, r)
	if !strings.Contains(md.String(), "- Block writes: not measurable on this host (its cgroup's") || strings.Contains(md.String(), "Written KiB") {
		t.Errorf("markdown:\n%s", md.String())
	}
}

// TestProxyRow: the docker-proxy actor gets its own row after the harness
// and is named in the harness's share, which includes it.
func TestProxyRow(t *testing.T) {
	r := fixtureResourceReport()
	recs, samples := resourceFixture()
	for _, s := range samples {
		if s.Actor == "harness" {
			s.Actor, s.Role = "docker-proxy", usage.RoleProxy
			samples = append(samples, s)
		}
	}
	SummarizeResources(&r, samples, recs)
	var md, text bytes.Buffer
	Markdown(&md, r)
	Text(&text, r)
	for _, want := range []string{"| harness | 0.61 |", "| docker-proxy | 0.61 |", "- Harness CPU: 2.93% of the nodes' CPU (goal ≤ 2%: over it), of which docker-proxy 1.46% (the userland proxy of the published ports: the harness's calls to btcd and the sampler, and to nodes the host cannot route to); sampler 0.39%."} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if !strings.Contains(text.String(), "harness CPU 2.93% of the nodes' (docker-proxy 1.46% of it)") {
		t.Errorf("terminal:\n%s", text.String())
	}
}
