package report

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/lnbench/lnbench/result"
	"github.com/lnbench/lnbench/runrecord"
)

// output is one artifact file and the exporter that renders it.
type output struct {
	name string
	fn   func(io.Writer) error
}

// WriteAll renders every exporter into dir, then the R plots (they read the
// CSVs), the HTML page (it embeds the plots) and, when the run was profiled,
// the flame graph timeline. A missing or failing R is one line on log,
// never an error: every other report is still written.
func WriteAll(dir string, rep Report, recs []result.Record, log io.Writer) error {
	err := writeFiles(dir,
		output{"summary.md", func(w io.Writer) error { return Markdown(w, rep) }},
		output{"summary.csv", func(w io.Writer) error { return CSV(w, rep) }},
		output{runrecord.SummaryFile, func(w io.Writer) error { return JSON(w, rep) }},
		output{"measurements.csv", func(w io.Writer) error { return MeasurementsCSV(w, rep, recs) }},
		output{"results.bench", func(w io.Writer) error { return Bench(w, rep) }},
	)
	if err != nil {
		return err
	}
	if len(rep.Resources) > 0 {
		if err := writeFiles(dir,
			output{ResourcesCSVName, func(w io.Writer) error { return ResourcesCSV(w, rep) }},
			output{ResourceTimelineCSVName, func(w io.Writer) error { return ResourceTimelineCSV(w, rep, recs) }},
		); err != nil {
			return err
		}
	}
	if err := writeOptional(dir, len(rep.Faults) > 0, output{FaultsCSVName, func(w io.Writer) error { return FaultsCSV(w, rep) }}); err != nil {
		return err
	}
	if err := writeCostCurveFiles(dir, rep); err != nil {
		return err
	}
	if err := WriteRScript(dir); err != nil {
		return err
	}
	// Not a run's context: plots are still wanted after Ctrl-C.
	if _, err := RunR(context.Background(), dir); err != nil {
		fmt.Fprintf(log, "plots: %v\n", err)
	}
	if err := writeFiles(dir, output{"report.html", func(w io.Writer) error { return HTML(w, rep, LoadPlots(dir)) }}); err != nil {
		return err
	}
	return WriteFlameTimeline(dir, recs, rep.Env.Cores)
}

func writeFiles(dir string, outputs ...output) error {
	for _, o := range outputs {
		f, err := os.Create(filepath.Join(dir, o.name))
		if err != nil {
			return err
		}
		if err := o.fn(f); err != nil {
			f.Close()
			return fmt.Errorf("%s: %v", o.name, err)
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

// writeCostCurveFiles writes the cost curve CSVs when the run has a curve
// and removes stale ones when it has none.
func writeCostCurveFiles(dir string, rep Report) error {
	c := rep.CostCurves
	return writeOptional(dir, len(c) > 0,
		output{CostCurveFile, func(w io.Writer) error { return CostCurveRowsCSV(w, c) }},
		output{CostCurveFitFile, func(w io.Writer) error { return CostCurveFitCSV(w, c) }},
	)
}

// writeOptional writes the outputs when want, else removes stale copies
// (a report regenerated after the analysis or the inputs changed).
func writeOptional(dir string, want bool, outputs ...output) error {
	if want {
		return writeFiles(dir, outputs...)
	}
	for _, o := range outputs {
		if err := os.Remove(filepath.Join(dir, o.name)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}
