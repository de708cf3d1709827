package report

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/record/result"
)

// writeCSVs writes a run's summary.csv and measurements.csv: the inputs
// of plots.R.
func writeCSVs(t *testing.T, dir string, rep Report, recs []result.Record) {
	t.Helper()
	for name, fn := range map[string]func(*os.File) error{
		"summary.csv":      func(f *os.File) error { return CSV(f, rep) },
		"measurements.csv": func(f *os.File) error { return MeasurementsCSV(f, rep, recs) },
	} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := fn(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if err := WriteRScript(dir); err != nil {
		t.Fatal(err)
	}
}

func TestRunRWithoutR(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := RunR(context.Background(), t.TempDir()); !errors.Is(err, ErrNoR) {
		t.Errorf("err = %v, want ErrNoR", err)
	}
}

func TestRunRFailure(t *testing.T) {
	bin := t.TempDir()
	fake := "#!/bin/sh\necho 'Error in library(ggplot2) : there is no package called ggplot2' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "Rscript"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	_, err := RunR(context.Background(), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "no package called ggplot2") {
		t.Errorf("err = %v, want R's last line", err)
	}
}

// needR skips a test unless Rscript with ggplot2 is installed.
func needR(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("Rscript"); err != nil {
		t.Skip("Rscript not installed")
	}
	if exec.Command("Rscript", "-e", "library(ggplot2)").Run() != nil {
		t.Skip("ggplot2 not installed")
	}
}

// TestRunRDrawsPlots runs the real R when installed (with ggplot2).
func TestRunRDrawsPlots(t *testing.T) {
	needR(t)
	dir := t.TempDir()
	writeCSVs(t, dir, fixtureReport(), fixtureRecords())
	// A stale plot from an earlier run must not survive.
	if err := os.WriteFile(filepath.Join(dir, "plot-stale.png"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := RunR(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"plot-iteration-times.png", "plot-latency-cdf.png", "plot-payments-per-sec-Concurrency.png", "plot-throughput-timeline.png"}
	if !slices.Equal(got, want) {
		t.Errorf("plots = %v, want %v", got, want)
	}
	for _, p := range LoadPlots(dir) {
		if !strings.HasPrefix(string(p.PNG), "\x89PNG") {
			t.Errorf("%s is not a PNG", p.Name)
		}
	}
}

// TestRunRDrawsSpecPlots draws a run of two specs with a baseline: the
// same plots coloured by spec, and the ratio chart.
func TestRunRDrawsSpecPlots(t *testing.T) {
	needR(t)
	dir := t.TempDir()
	writeCSVs(t, dir, fixtureSpecReport(), fixtureSpecRecords())
	got, err := RunR(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"plot-iteration-times.png", "plot-latency-cdf.png", "plot-payments-per-sec-Concurrency.png", "plot-ratio.png", "plot-throughput-timeline.png"}
	if !slices.Equal(got, want) {
		t.Errorf("plots = %v, want %v", got, want)
	}
}

// TestRunRDrawsResourcePlots draws the CPU and sync timelines of a run that
// sampled resources, beside the throughput timeline.
func TestRunRDrawsResourcePlots(t *testing.T) {
	needR(t)
	dir := t.TempDir()
	rep := fixtureResourceReport()
	recs, _ := resourceFixture()
	writeCSVs(t, dir, rep, recs)
	if err := writeFile(filepath.Join(dir, ResourceTimelineCSVName), func(w io.Writer) error { return ResourceTimelineCSV(w, rep, recs) }); err != nil {
		t.Fatal(err)
	}
	got, err := RunR(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"plot-cpu-timeline.png", "plot-syncs-timeline.png", "plot-throughput-timeline.png"} {
		if !slices.Contains(got, want) {
			t.Errorf("plots = %v, want %s among them", got, want)
		}
	}
	if os.Getenv("LNBENCH_KEEP_PLOTS") != "" {
		for _, p := range got {
			data, _ := os.ReadFile(filepath.Join(dir, p))
			_ = os.WriteFile(filepath.Join(os.Getenv("LNBENCH_KEEP_PLOTS"), p), data, 0o644)
		}
	}
}
