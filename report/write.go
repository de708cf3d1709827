package report

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
)

// exporter writes one kind of artifact of a run (BenchmarkDotNet's
// exporters): a file from the summary, or a step that writes several.
type exporter struct {
	// files are what it writes, removed when it does not want the run, so
	// a report regenerated after the analysis or the inputs changed leaves
	// no stale copy.
	files  []string
	wants  func(Report) bool // nil: every run
	export func(exportRun) error
}

// exportRun is what an exporter renders: the summary, the payments it was
// derived from, the artifacts folder, and where a step that cannot fail
// the run says why it did nothing.
type exportRun struct {
	dir  string
	rep  Report
	recs []result.Record
	log  io.Writer
	opts RenderOptions
}

// RenderOptions are what a render may leave out.
type RenderOptions struct {
	// SkipPlots writes plots.R but does not run R: Rscript's start and
	// ggplot2's load take several seconds a run (13 s of a compose
	// --quick run's 113 s on a busy 2-core VM), which a test suite or a
	// loop of runs that reads the numbers only need not pay.
	// `Rscript plots.R DIR` draws them later.
	SkipPlots bool
}

// exporters run in this order: the R plots read the CSVs, the HTML page
// embeds the plots.
var exporters = []exporter{
	fileExporter("summary.md", nil, func(w io.Writer, e exportRun) error { return Markdown(w, e.rep) }),
	fileExporter("summary.csv", nil, func(w io.Writer, e exportRun) error { return CSV(w, e.rep) }),
	fileExporter(record.SummaryFile, nil, func(w io.Writer, e exportRun) error { return JSON(w, e.rep) }),
	fileExporter("measurements.csv", nil, func(w io.Writer, e exportRun) error { return MeasurementsCSV(w, e.rep, e.recs) }),
	fileExporter("results.bench", nil, func(w io.Writer, e exportRun) error { return Bench(w, e.rep) }),
	fileExporter(ResourcesCSVName, hasResources, func(w io.Writer, e exportRun) error { return ResourcesCSV(w, e.rep) }),
	fileExporter(ResourceTimelineCSVName, hasResources, func(w io.Writer, e exportRun) error { return ResourceTimelineCSV(w, e.rep, e.recs) }),
	fileExporter(FaultsCSVName, hasFaults, func(w io.Writer, e exportRun) error { return FaultsCSV(w, e.rep) }),
	fileExporter(CostCurveFile, hasCostCurves, func(w io.Writer, e exportRun) error { return CostCurveRowsCSV(w, e.rep.CostCurves) }),
	fileExporter(CostCurveFitFile, hasCostCurves, func(w io.Writer, e exportRun) error { return CostCurveFitCSV(w, e.rep.CostCurves) }),
	{export: exportPlots},
	fileExporter("report.html", nil, func(w io.Writer, e exportRun) error { return HTML(w, e.rep, LoadPlots(e.dir)) }),
	{export: func(e exportRun) error { return WriteFlameTimeline(e.dir, e.recs, e.rep.Env.Cores) }}, // nothing without profiles
}

func hasResources(r Report) bool  { return len(r.Resources) > 0 }
func hasFaults(r Report) bool     { return len(r.Faults) > 0 }
func hasCostCurves(r Report) bool { return len(r.CostCurves) > 0 }

// WriteAll runs every exporter that wants the run into dir and removes the
// files of those that do not. A missing or failing R is one line on log,
// never an error: every other report is still written.
func WriteAll(dir string, rep Report, recs []result.Record, log io.Writer) error {
	return WriteAllWith(dir, rep, recs, log, RenderOptions{})
}

// WriteAllWith is WriteAll leaving out what opts says.
func WriteAllWith(dir string, rep Report, recs []result.Record, log io.Writer, opts RenderOptions) error {
	return runExporters(exportRun{dir: dir, rep: rep, recs: recs, log: log, opts: opts}, exporters)
}

func runExporters(e exportRun, xs []exporter) error {
	for _, x := range xs {
		if x.wants == nil || x.wants(e.rep) {
			if err := x.export(e); err != nil {
				return err
			}
			continue
		}
		for _, name := range x.files {
			if err := os.Remove(filepath.Join(e.dir, name)); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	return nil
}

// fileExporter is an exporter of one file rendered by render.
func fileExporter(name string, wants func(Report) bool, render func(io.Writer, exportRun) error) exporter {
	return exporter{files: []string{name}, wants: wants, export: func(e exportRun) error {
		return writeFile(filepath.Join(e.dir, name), func(w io.Writer) error { return render(w, e) })
	}}
}

// exportPlots writes plots.R and runs it over the CSVs.
func exportPlots(e exportRun) error {
	if err := WriteRScript(e.dir); err != nil {
		return err
	}
	if e.opts.SkipPlots {
		for _, old := range PlotFiles(e.dir) { // none left from an earlier render, as RunR does
			_ = os.Remove(filepath.Join(e.dir, old))
		}
		fmt.Fprintf(e.log, "plots: not drawn (asked to skip them); Rscript %s %s draws them\n", RScriptName, e.dir)
		return nil
	}
	// Not a run's context: plots are still wanted after Ctrl-C.
	if _, err := RunR(context.Background(), e.dir); err != nil {
		fmt.Fprintf(e.log, "plots: %v\n", err)
	}
	return nil
}

// writeFile creates path and renders into it; an error names the file.
func writeFile(path string, render func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := render(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %v", filepath.Base(path), err)
	}
	return f.Close()
}
