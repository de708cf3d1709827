package report

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestExportersWriteWhatTheRunWants writes every file exporter's file for
// a run without resources, faults or a cost curve: the summary's files
// appear, and stale copies of the others (from an earlier analysis) go.
func TestExportersWriteWhatTheRunWants(t *testing.T) {
	dir := t.TempDir()
	unwanted := []string{ResourcesCSVName, ResourceTimelineCSVName, FaultsCSVName, CostCurveFile, CostCurveFitFile}
	for _, name := range unwanted {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("stale"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var files []exporter
	for _, x := range exporters {
		if len(x.files) > 0 {
			files = append(files, x)
		}
	}
	if err := runExporters(exportRun{dir: dir, rep: fixtureReport(), recs: fixtureRecords(), log: io.Discard}, files); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"summary.md", "summary.csv", "summary.json", "measurements.csv", "results.bench", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s not written: %v", name, err)
		}
	}
	for _, name := range unwanted {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("stale %s left behind", name)
		}
	}
}
