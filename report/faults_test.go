package report

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/internal/envinfo"
	"github.com/lnbench/lnbench/internal/simulate"
	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/recovery"
	"github.com/lnbench/lnbench/scenario"
)

// faultsRunDir is an artifacts folder of a faulted run (simulate.Fixture:
// bob restarted in Concurrency=4, a 50 ms delay on bob in Concurrency=8)
// in the layout before run.json: the record in summary.json (without the
// faults), payments.jsonl, faults.jsonl. It keeps that older layout on
// purpose (TestLoadOldFolder); -update rewrites it.
const faultsRunDir = "testdata/faults-run"

func faultFixture() (Report, []result.Record, []faults.Record) {
	recs, fs := simulate.Fixture(t0)
	s := scenario.Scenario{Name: "RestartAndDelayBob", Method: "RunAlicePaysBob", Topology: "AlicePaysBob",
		Params: []scenario.Param{{Name: "Concurrency", Values: []string{"4", "8"}}, {Name: "TotalPayments", Values: []string{"300"}}},
		Job:    scenario.Job{LaunchCount: 1, WarmupCount: 1, IterationCount: 3, InvocationCount: 1},
		Node:   scenario.Node{Implementation: "lnd", Version: "v0.21.0-beta", DBBackend: "bbolt"}}
	r := Report{Manifest: record.Manifest{RunID: "20260102T030405Z-RestartAndDelayBob", Started: t0, Finished: t0.Add(100e9), Scenario: s, Backend: "compose",
		Env:               envinfo.Env{OS: "Debian GNU/Linux 12 (bookworm)", Kernel: "6.1.0", CPU: "AMD EPYC", Cores: 2, MemoryMiB: 4096, GoVersion: "go1.26.8"},
		Nodes:             []record.NodeInfo{{Implementation: "lnd", Version: "v0.21.0-beta", Flags: []string{"--bitcoin.simnet", "--db.backend=bbolt"}}},
		HarnessCPUSeconds: 2, WallSeconds: 100}}
	Summarize(&r, recs)
	return r, recs, fs
}

func TestFaultsGolden(t *testing.T) {
	r, recs, fs := faultFixture()
	r.Faults = recovery.Analyze(recs, fs, recovery.Default)
	var md, csv bytes.Buffer
	if err := Markdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := FaultsCSV(&csv, r); err != nil {
		t.Fatal(err)
	}
	testsupport.Golden(t, "testdata/summary-faults.md.golden", md.Bytes())
	testsupport.Golden(t, "testdata/faults.csv.golden", csv.Bytes())
	for _, want := range []string{
		// 12 RPC errors and 10 NO_ROUTE; the 2 payments hung over the restart stalled.
		"| Concurrency=4/TotalPayments=300 | 0 | restart bob | 12.0 | 5.0 | 22 | 2 | 0 | 19.2 | 3.2 | 1.5 (6.5) | 208/NA/210 |",
		// The 50 ms delay moves the median by 50 ms and back.
		"| Concurrency=8/TotalPayments=300 | 1 | delay bob 50ms | 10.0 | 10.0 | 0 | 0 | 0 | 37.2 | 0.0 |  | 208/258/208 |",
		"Faults injected:\n\n- restart bob at 12.0 s for 5.0 s (iteration 0): 22 failed, 2 stalled, 0 aborted; throughput back within 10% 3.2 s after its end; channels active 1.5 s after",
		"- restart bob (Concurrency=4/TotalPayments=300, 12.0 s): latency during the fault: 0 successful payment(s)",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

func TestFaultsHTML(t *testing.T) {
	r, recs, fs := faultFixture()
	r.Faults = recovery.Analyze(recs, fs, recovery.Default)
	var b bytes.Buffer
	if err := HTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{"<h2>Faults</h2>", "<td>restart bob</td>", "<li>restart bob at 12.0 s", `fill="firebrick"`} {
		if !strings.Contains(s, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

// writeFaultsRun writes the faulted run's artifacts into dir.
func writeFaultsRun(t *testing.T, dir string) {
	t.Helper()
	r, recs, fs := faultFixture()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, lines func(*json.Encoder) error) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := lines(json.NewEncoder(f)); err != nil {
			t.Fatal(err)
		}
	}
	write(record.SummaryFile, func(e *json.Encoder) error { e.SetIndent("", "  "); return e.Encode(r) })
	write(record.PaymentsFile, func(e *json.Encoder) error {
		for _, rec := range recs {
			if err := e.Encode(rec); err != nil {
				return err
			}
		}
		return nil
	})
	write(faults.FileName, func(e *json.Encoder) error {
		for _, f := range fs {
			if err := e.Encode(f); err != nil {
				return err
			}
		}
		return nil
	})
}

// copyDir copies the files of src into a new temporary folder.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestReportRegeneratesFaults is what `lnbench report DIR` does on the
// faulted run's folder: the faults come back from faults.jsonl into every
// format, and go away (faults.csv included) when the stream does.
func TestReportRegeneratesFaults(t *testing.T) {
	if testsupport.Updating() {
		writeFaultsRun(t, faultsRunDir)
	}
	dir := copyDir(t, faultsRunDir)
	t.Setenv("PATH", t.TempDir()) // no R: plots are the R test's business
	rep, recs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Faults) != 2 || rep.Faults[0].Kind != faults.Restart || rep.Faults[0].RecoverySeconds == nil {
		t.Fatalf("faults = %+v", rep.Faults)
	}
	var log bytes.Buffer
	if err := WriteAll(dir, rep, recs, &log); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	got := read(FaultsCSVName)
	want, err := os.ReadFile("testdata/faults.csv.golden")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("faults.csv from the folder differs from the golden file:\n%s", testsupport.Diff(string(want), got))
	}
	if md := read("summary.md"); !strings.Contains(md, "## Faults") || !strings.Contains(md, "Faults injected:") {
		t.Error("summary.md lacks the faults")
	}
	if js := read("summary.json"); !strings.Contains(js, `"faults": [`) || !strings.Contains(js, `"recovery_s": 3.2`) {
		t.Error("summary.json lacks the faults")
	}
	if !strings.Contains(read("report.html"), "<h2>Faults</h2>") {
		t.Error("report.html lacks the faults")
	}
	// Reloading the regenerated folder must not double anything.
	again, _, err := Load(dir)
	if err != nil || len(again.Faults) != 2 {
		t.Fatalf("reloaded: %d faults, %v", len(again.Faults), err)
	}
	// Without the stream, no faults and no stale faults.csv.
	if err := os.Remove(filepath.Join(dir, faults.FileName)); err != nil {
		t.Fatal(err)
	}
	rep, recs, err = Load(dir)
	if err != nil || rep.Faults != nil {
		t.Fatalf("faults %v, err %v", rep.Faults, err)
	}
	if err := WriteAll(dir, rep, recs, &log); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, FaultsCSVName)); !os.IsNotExist(err) {
		t.Errorf("stale faults.csv left: %v", err)
	}
}

func TestUnreadableFaultsIsAWarning(t *testing.T) {
	dir := copyDir(t, faultsRunDir)
	if err := os.WriteFile(filepath.Join(dir, faults.FileName), []byte("{bad\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, _, err := Load(dir)
	if err != nil || rep.Faults != nil || !strings.Contains(strings.Join(rep.AnalysisWarnings, "\n"), "faults not analysed: faults.jsonl line 1") {
		t.Errorf("err %v, faults %v, warnings %q", err, rep.Faults, rep.AnalysisWarnings)
	}
}

// TestRPlotShadesFaults draws the throughput timeline with and without
// faults.csv: with it, plots.R must run and the picture must change.
func TestRPlotShadesFaults(t *testing.T) {
	needR(t)
	r, recs, fs := faultFixture()
	r.Faults = recovery.Analyze(recs, fs, recovery.Default)
	draw := func(withFaults bool) []byte {
		dir := t.TempDir()
		writeCSVs(t, dir, r, recs)
		if withFaults {
			var b bytes.Buffer
			if err := FaultsCSV(&b, r); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, FaultsCSVName), b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := RunR(context.Background(), dir); err != nil {
			t.Fatal(err)
		}
		png, err := os.ReadFile(filepath.Join(dir, "plot-throughput-timeline.png"))
		if err != nil {
			t.Fatal(err)
		}
		if testsupport.Updating() && withFaults {
			_ = os.WriteFile(filepath.Join(os.TempDir(), "lnbench-faults-timeline.png"), png, 0o644) // to look at
		}
		return png
	}
	if bytes.Equal(draw(true), draw(false)) {
		t.Error("faults.csv did not change the throughput timeline")
	}
}

func TestSparklineFaults(t *testing.T) {
	perSec := make([]int, 70)
	for i := range perSec {
		perSec[i] = 5
	}
	got := SparklineFaults(perSec, 60, []faultSpan{{2.5, 4, 6.2}, {58, 1 << 30, 1 << 30}})
	want := []string{
		"   0s │" + strings.Repeat("█", 60),
		"fault │  ^^~~~" + strings.Repeat(" ", 51) + "^^",
		"  60s │" + strings.Repeat("█", 10),
		"fault │" + strings.Repeat("^", 10),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A fault that never took effect is listed but drawn nowhere; a kill runs
// to the end of its case.
func TestFaultWithoutStartIsNotDrawn(t *testing.T) {
	r, recs, fs := faultFixture()
	kill := faults.Record{Case: fs[1].Case, Kind: faults.Kill, Target: "carol", Spec: "kill carol at 22s", Iteration: 1, Start: fs[1].Start.Add(12e9)}
	fs = append(fs, kill, faults.Record{Case: fs[0].Case, Kind: faults.Pause, Target: "carol", Spec: "pause carol at 30s for 5s", Iteration: -1, Error: "docker pause: no such container"})
	r.Faults = recovery.Analyze(recs, fs, recovery.Default)
	if spans := faultSpans(r, fs[0].Case); len(spans) != 1 {
		t.Errorf("spans %v, want the restart's only", spans)
	}
	if spans := faultSpans(r, fs[0].Case); spans[0] != (faultSpan{12, 17, 18.5}) {
		t.Errorf("restart span %v, want 12–17 then channels until 18.5", spans[0])
	}
	if spans := faultSpans(r, kill.Case); len(spans) != 2 || spans[1].From != 22 || spans[1].To < 1e6 {
		t.Errorf("spans %v, want the delay's and the kill's to the end", spans)
	}
	var b bytes.Buffer
	if err := FaultsCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, ",pause carol,,,,NA,NA,NA,NA,NA,NA,") || !strings.HasSuffix(last, ",docker pause: no such container") {
		t.Errorf("row %q", last)
	}
	var md bytes.Buffer
	if err := Markdown(&md, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 1 | kill carol | 22.0 | no end |", "| – | pause carol | not injected |",
		"- pause carol (Concurrency=4/TotalPayments=300): docker pause: no such container\n", "- pause carol: docker pause: no such container\n"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if testing.Short() {
		return
	}
	needR(t)
	dir := t.TempDir()
	writeCSVs(t, dir, r, recs)
	if err := os.WriteFile(filepath.Join(dir, FaultsCSVName), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := RunR(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
}
