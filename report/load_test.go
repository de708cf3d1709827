package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
)

// writeFolder makes an artifacts folder as the runner leaves it: recs in
// payments.jsonl and rep's manifest in run.json.
func writeFolder(t *testing.T, rep Report, recs []result.Record) string {
	t.Helper()
	dir := writePayments(t, recs)
	if err := record.Write(dir, rep.Manifest); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeLegacyFolder makes a folder as runs before run.json left it: the
// whole report, record and derived figures, in summary.json.
func writeLegacyFolder(t *testing.T, rep Report, recs []result.Record) string {
	t.Helper()
	dir := writePayments(t, recs)
	var b bytes.Buffer
	if err := JSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, record.SummaryFile), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writePayments(t *testing.T, recs []result.Record) string {
	t.Helper()
	dir := t.TempDir()
	w, err := result.Create(filepath.Join(dir, record.PaymentsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// regenerate is `lnbench report dir` without R (PATH is emptied by the caller).
func regenerate(t *testing.T, dir string) Report {
	t.Helper()
	rep, recs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteAll(dir, rep, recs, io.Discard); err != nil {
		t.Fatal(err)
	}
	return rep
}

// interruptedRun is the fixture cut during Concurrency=20's first
// iteration, as the runner leaves it: its warning says how it ended.
func interruptedRun() (Report, []result.Record) {
	var recs []result.Record
	for _, r := range fixtureRecords() {
		if r.Case == "Concurrency=10/TotalPayments=4" || r.Iteration == 0 && r.Seq < 2 {
			recs = append(recs, r)
		}
	}
	rep := fixtureReport()
	rep.Warnings = []string{"run ended early: interrupted; every process was stopped"}
	Summarize(&rep, recs)
	return rep, recs
}

// TestReportTwiceKeepsWarnings regenerates the reports of both folder
// layouts twice: summary.json must come out the same, the run's warnings
// neither lost nor repeated.
func TestReportTwiceKeepsWarnings(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no R: the plots are not what this tests
	for name, write := range map[string]func(*testing.T, Report, []result.Record) string{"run.json": writeFolder, "summary.json": writeLegacyFolder} {
		t.Run(name, func(t *testing.T) { reportTwice(t, write) })
	}
}

func reportTwice(t *testing.T, write func(*testing.T, Report, []result.Record) string) {
	rep, recs := interruptedRun()
	if len(rep.AnalysisWarnings) != 1 || len(rep.Cases) != 1 {
		t.Fatalf("fixture: want one case left out with a warning, got %d cases, %q", len(rep.Cases), rep.AnalysisWarnings)
	}
	dir := write(t, rep, recs)
	regenerate(t, dir)
	first, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	again := regenerate(t, dir)
	second, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	if !bytes.Equal(first, second) {
		t.Errorf("summary.json changed on the second report:\n%s\n---\n%s", first, second)
	}
	if !reflect.DeepEqual(again.Warnings, rep.Warnings) || !reflect.DeepEqual(again.AnalysisWarnings, rep.AnalysisWarnings) {
		t.Errorf("warnings %q + %q, want %q + %q", again.Warnings, again.AnalysisWarnings, rep.Warnings, rep.AnalysisWarnings)
	}
	all := AllWarnings(again)
	for _, w := range append(rep.Warnings, rep.AnalysisWarnings...) {
		if n := countOf(all, w); n != 1 {
			t.Errorf("%q appears %d times in the report's warnings", w, n)
		}
	}
}

// TestLoadDropsLegacyAnalysisWarnings reads a summary.json written before
// the analysis warnings had their own field: they sat among the run's.
func TestLoadDropsLegacyAnalysisWarnings(t *testing.T) {
	rep, recs := interruptedRun()
	legacy := rep
	legacy.Warnings = append(append([]string(nil), rep.Warnings...), rep.AnalysisWarnings...)
	legacy.AnalysisWarnings = nil
	got, _, err := Load(writeLegacyFolder(t, legacy, recs))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Warnings, rep.Warnings) || !reflect.DeepEqual(got.AnalysisWarnings, rep.AnalysisWarnings) {
		t.Errorf("warnings %q + %q, want %q + %q", got.Warnings, got.AnalysisWarnings, rep.Warnings, rep.AnalysisWarnings)
	}
}

// TestLoadKeepsWhatTheRunKnew: a regenerated report keeps the environment,
// node flags, setup times, forwards and harness CPU from run.json, or from
// summary.json in an older folder.
func TestLoadKeepsWhatTheRunKnew(t *testing.T) {
	for name, write := range map[string]func(*testing.T, Report, []result.Record) string{"run.json": writeFolder, "summary.json": writeLegacyFolder} {
		t.Run(name, func(t *testing.T) { keepsWhatTheRunKnew(t, write) })
	}
}

func keepsWhatTheRunKnew(t *testing.T, write func(*testing.T, Report, []result.Record) string) {
	want := fixtureReport()
	want.Forwards = []record.Forward{{Network: "launch1", Node: "carol", Count: 32}}
	want.Warnings = []string{"sampling: bob had no pprof endpoint"}
	recs := fixtureRecords()
	got, gotRecs, err := Load(write(t, want, recs))
	if err != nil {
		t.Fatal(err)
	}
	if len(gotRecs) != len(recs) {
		t.Errorf("%d records, want %d", len(gotRecs), len(recs))
	}
	// Compare as JSON: that is what every exporter sees, and time zones
	// or nil-versus-empty slices are not differences a reader can notice.
	wj, _ := json.Marshal(want)
	gj, _ := json.Marshal(got)
	if !bytes.Equal(wj, gj) {
		t.Errorf("round trip through the folder lost data:\nwant %s\ngot  %s", wj, gj)
	}
	if got.Env.CPU == "" || len(got.Nodes[0].Flags) == 0 || got.HarnessCPUSeconds != 1.5 || !got.Started.Equal(want.Started) {
		t.Errorf("run metadata lost: %+v", got)
	}
}

// TestLoadWithoutRecord reads a run killed before it wrote run.json: the
// scenario it wrote first is enough to summarize its payments.
func TestLoadWithoutRecord(t *testing.T) {
	dir := writePayments(t, fixtureRecords())
	if _, _, err := Load(dir); err == nil {
		t.Fatal("a folder with neither run.json, summary.json nor scenario.yml loaded")
	}
	rep := fixtureReport()
	if err := os.WriteFile(filepath.Join(dir, "scenario.yml"), rep.Scenario.YAML(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.RunID != filepath.Base(dir) || len(got.Cases) != 2 || !slices.Contains(got.Warnings, "run.json missing: environment and setup times unknown") {
		t.Errorf("from scenario.yml: run %q, %d cases, warnings %q", got.RunID, len(got.Cases), got.Warnings)
	}
}

// TestLoadPrefersManifest: once run.json exists, summary.json is output
// only; a stale one (another run id, a warning the run never had) is not
// read back.
func TestLoadPrefersManifest(t *testing.T) {
	rep := fixtureReport()
	dir := writeFolder(t, rep, fixtureRecords())
	stale := rep
	stale.RunID, stale.Warnings = "stale", []string{"not this run's"}
	var b bytes.Buffer
	if err := JSON(&b, stale); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, record.SummaryFile), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.RunID != rep.RunID || len(got.Warnings) != 0 || len(got.Cases) != len(rep.Cases) {
		t.Errorf("run %q, warnings %q, %d cases: want %q, none, %d", got.RunID, got.Warnings, len(got.Cases), rep.RunID, len(rep.Cases))
	}
}

// TestLoadOldFolder loads a folder of the layout before run.json, checked
// in (testdata/faults-run: summary.json, payments.jsonl, faults.jsonl):
// its record comes from summary.json, its cases and faults from the streams.
func TestLoadOldFolder(t *testing.T) {
	if _, err := os.Stat(filepath.Join(faultsRunDir, record.ManifestFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s should have no %s: %v", faultsRunDir, record.ManifestFile, err)
	}
	got, recs, err := Load(faultsRunDir)
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := faultFixture()
	if got.RunID != want.RunID || got.Env.CPU != want.Env.CPU || got.HarnessCPUSeconds != want.HarnessCPUSeconds || len(got.Nodes) != 1 {
		t.Errorf("record not read from summary.json: %+v", got.Manifest)
	}
	if len(recs) == 0 || len(got.Cases) != len(want.Cases) || len(got.Faults) != 2 {
		t.Errorf("%d records, %d cases (want %d), %d faults (want 2)", len(recs), len(got.Cases), len(want.Cases), len(got.Faults))
	}
}

func countOf(xs []string, x string) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}
