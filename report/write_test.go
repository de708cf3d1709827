package report

import (
	"io"
	"os"
	"path/filepath"
	"strings"
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

// TestSkipPlotsWritesTheScriptOnly: with SkipPlots a render writes plots.R
// and says how to draw the plots, runs no R (a fake Rscript that would
// leave a mark is on PATH), and leaves no PNG of an earlier render.
func TestSkipPlotsWritesTheScriptOnly(t *testing.T) {
	bin, dir := t.TempDir(), t.TempDir()
	mark := filepath.Join(bin, "ran")
	if err := os.WriteFile(filepath.Join(bin, "Rscript"), []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	stale := filepath.Join(dir, "plot-latency-cdf.png")
	if err := os.WriteFile(stale, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	if err := WriteAllWith(dir, fixtureReport(), fixtureRecords(), &log, RenderOptions{SkipPlots: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, RScriptName)); err != nil {
		t.Errorf("plots.R not written: %v", err)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("Rscript ran")
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("an earlier render's plot left behind")
	}
	if want := "plots: not drawn (asked to skip them); Rscript plots.R " + dir + " draws them"; !strings.Contains(log.String(), want) {
		t.Errorf("log %q, want %q", log.String(), want)
	}
}
