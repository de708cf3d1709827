package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/result"
	"github.com/lnbench/lnbench/sampler"
	"github.com/lnbench/lnbench/scenario"
)

type nodeRef = node.Node

var secretArg = regexp.MustCompile(`^(--(?:btcd\.)?rpcpass(?:word)?=).*$`)

// redact removes secrets and run-local paths from recorded command lines.
func redact(args []string, workDir string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		a = secretArg.ReplaceAllString(a, "${1}<redacted>")
		if workDir != "" {
			a = strings.ReplaceAll(a, workDir, "$RUN")
		}
		out[i] = a
	}
	return out
}

// writeNodeConfigs records each service's command line (secrets redacted).
func writeNodeConfigs(dir string, net *network.Network) {
	write := func(name string, args []string) {
		d := filepath.Join(dir, name)
		if os.MkdirAll(d, 0o755) != nil {
			return
		}
		_ = os.WriteFile(filepath.Join(d, "args.txt"), []byte(strings.Join(redact(args, ""), "\n")+"\n"), 0o644)
	}
	write("btcd", net.ChainEP.Args)
	for name, ep := range net.Endpoints {
		write(name, ep.Args)
	}
}

// writeReports analyses the raw stream on disk and writes every report.
func writeReports(dir string, rep *report.Report) error {
	recs, err := result.ReadFile(filepath.Join(dir, "payments.jsonl"))
	if err != nil {
		return fmt.Errorf("reading results: %v", err)
	}
	Summarize(rep, recs)
	if err := WriteAll(dir, *rep, recs); err != nil {
		return err
	}
	return sampler.WriteTimeline(dir, recs)
}

// Summarize fills rep.Cases from the records, in scenario case order.
func Summarize(rep *report.Report, recs []result.Record) {
	s := rep.Scenario
	var ids []string
	shapes := map[string]analysis.Shape{}
	params := map[string][]scenario.Value{}
	for _, c := range s.Cases() {
		ids = append(ids, c.ID())
		shapes[c.ID()] = analysis.Shape{Payments: c.Int("TotalPayments", 100), Invocations: s.Job.InvocationCount}
		params[c.ID()] = c.Values
	}
	rep.Cases = nil
	for _, c := range analysis.Analyze(recs, ids, shapes) {
		if c.Payments == 0 {
			continue // case never reached (run interrupted before it)
		}
		if c.Time.N == 0 {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: interrupted before its first complete iteration (%d payments recorded in payments.jsonl); left out of the table", c.ID, c.Payments))
			continue
		}
		rep.Cases = append(rep.Cases, report.Row{Method: s.Method, Params: params[c.ID], Case: c})
	}
}

// WriteAll renders every exporter into dir; notes (no R) go to stderr.
func WriteAll(dir string, rep report.Report, recs []result.Record) error {
	return WriteAllTo(dir, rep, recs, os.Stderr)
}

// output is one artifact file and the exporter that renders it.
type output struct {
	name string
	fn   func(io.Writer) error
}

// WriteAllTo renders every exporter into dir, then the R plots (they read
// the CSVs) and the HTML page (it embeds the plots). A missing or failing R
// is one line on log, never an error: every other report is still written.
func WriteAllTo(dir string, rep report.Report, recs []result.Record, log io.Writer) error {
	err := writeFiles(dir,
		output{"summary.md", func(w io.Writer) error { return report.Markdown(w, rep) }},
		output{"summary.csv", func(w io.Writer) error { return report.CSV(w, rep) }},
		output{"summary.json", func(w io.Writer) error { return report.JSON(w, rep) }},
		output{"measurements.csv", func(w io.Writer) error { return report.MeasurementsCSV(w, recs) }},
		output{"results.bench", func(w io.Writer) error { return report.Bench(w, rep) }},
	)
	if err != nil {
		return err
	}
	if err := report.WriteRScript(dir); err != nil {
		return err
	}
	// Not the run's context: plots are still wanted after Ctrl-C.
	if _, err := report.RunR(context.Background(), dir); err != nil {
		fmt.Fprintf(log, "plots: %v\n", err)
	}
	return writeFiles(dir, output{"report.html", func(w io.Writer) error { return report.HTML(w, rep, report.LoadPlots(dir)) }})
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

// writeScenario records the scenario so `lnbench run <artifacts dir>` reruns
// the same setup; a topology file is copied beside it.
func writeScenario(dir string, s scenario.Scenario) error {
	if strings.HasSuffix(s.Topology, ".yml") || strings.HasSuffix(s.Topology, ".yaml") {
		data, err := os.ReadFile(s.Topology)
		if err != nil {
			return fmt.Errorf("topology file: %v", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "topology.yml"), data, 0o644); err != nil {
			return err
		}
		s.Topology = "topology.yml"
	}
	return os.WriteFile(filepath.Join(dir, "scenario.yml"), s.YAML(), 0o644)
}
