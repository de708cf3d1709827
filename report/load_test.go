package report

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/lnbench/lnbench/result"
)

// writeFolder makes an artifacts folder holding recs and rep as summary.json.
func writeFolder(t *testing.T, rep Report, recs []result.Record) string {
	t.Helper()
	dir := t.TempDir()
	w, err := result.Create(filepath.Join(dir, "payments.jsonl"))
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
	var b bytes.Buffer
	if err := JSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), b.Bytes(), 0o644); err != nil {
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

func TestReportTwiceKeepsWarnings(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no R: the plots are not what this tests
	rep, recs := interruptedRun()
	if len(rep.AnalysisWarnings) != 1 || len(rep.Cases) != 1 {
		t.Fatalf("fixture: want one case left out with a warning, got %d cases, %q", len(rep.Cases), rep.AnalysisWarnings)
	}
	dir := writeFolder(t, rep, recs)
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
	got, _, err := Load(writeFolder(t, legacy, recs))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Warnings, rep.Warnings) || !reflect.DeepEqual(got.AnalysisWarnings, rep.AnalysisWarnings) {
		t.Errorf("warnings %q + %q, want %q + %q", got.Warnings, got.AnalysisWarnings, rep.Warnings, rep.AnalysisWarnings)
	}
}

// TestLoadKeepsWhatTheRunKnew: a regenerated report keeps the environment,
// node flags, setup times, forwards and harness CPU from summary.json.
func TestLoadKeepsWhatTheRunKnew(t *testing.T) {
	want := fixtureReport()
	want.Forwards = []Forward{{Network: "launch1", Node: "carol", Count: 32}}
	want.Warnings = []string{"sampling: bob had no pprof endpoint"}
	recs := fixtureRecords()
	got, gotRecs, err := Load(writeFolder(t, want, recs))
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
		t.Errorf("round trip through summary.json lost data:\nwant %s\ngot  %s", wj, gj)
	}
	if got.Env.CPU == "" || len(got.Nodes[0].Flags) == 0 || got.HarnessCPUSeconds != 1.5 || !got.Started.Equal(want.Started) {
		t.Errorf("run metadata lost: %+v", got)
	}
}

func TestLoadWithoutSummary(t *testing.T) {
	dir := writeFolder(t, fixtureReport(), fixtureRecords())
	os.Remove(filepath.Join(dir, "summary.json"))
	if _, _, err := Load(dir); err == nil {
		t.Fatal("a folder with neither summary.json nor scenario.yml loaded")
	}
	rep := fixtureReport()
	if err := os.WriteFile(filepath.Join(dir, "scenario.yml"), rep.Scenario.YAML(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.RunID != filepath.Base(dir) || len(got.Cases) != 2 || !slices.Contains(got.Warnings, "summary.json missing: environment and setup times unknown") {
		t.Errorf("from scenario.yml: run %q, %d cases, warnings %q", got.RunID, len(got.Cases), got.Warnings)
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
