//go:build e2e

package e2e

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/runner"
	"github.com/lnbench/lnbench/scenario"
)

// TestLocalAlicePaysBob runs real btcd and two real lnd through the local
// backend: 2 concurrency levels × 2 iterations × 30 payments, then checks the
// raw records, the summary arithmetic, that nothing is left running, and
// that R drew the run's plots (the one e2e test that draws them).
func TestLocalAlicePaysBob(t *testing.T) {
	t.Parallel() // local processes on free ports, own work and artifacts folders
	s := scenario.Default()
	s.Params = []scenario.Param{{Name: "Concurrency", Values: []string{"5", "20"}}, {Name: "TotalPayments", Values: []string{"30"}}}
	s.Job = scenario.Job{LaunchCount: 1, WarmupCount: 1, IterationCount: 2, InvocationCount: 1}
	s.ReuseNetwork = true

	work := t.TempDir()
	rep, dir := runLocalRender(t, s, work, report.RenderOptions{})
	run := runner.Run{ID: filepath.Base(dir), Dir: dir}

	// Teardown: no process mentions the run's work folder, which is gone.
	if ps := processesMentioning(filepath.Join(work, run.ID)); len(ps) > 0 {
		t.Fatalf("processes left running after the run:\n%v", ps)
	}
	if _, err := os.Stat(filepath.Join(work, run.ID)); !os.IsNotExist(err) {
		t.Fatalf("work folder (holding keys) not removed: %v", err)
	}

	recs, err := result.ReadFile(filepath.Join(run.Dir, "payments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	measured := map[string][]result.Record{}
	warm := 0
	for _, r := range recs {
		switch r.Phase {
		case result.Measure:
			measured[r.Case] = append(measured[r.Case], r)
		case result.Warmup:
			warm++
		}
		if r.Status != result.Succeeded {
			t.Errorf("payment failed: %+v", r)
		}
		if r.Payer != "alice" || r.Payee != "bob" || r.Hops != 1 || r.InvoiceNs <= 0 || r.PaymentNs <= 0 || !r.End.After(r.Start) {
			t.Errorf("implausible record %+v", r)
		}
	}
	if warm != 60 || len(measured) != 2 {
		t.Fatalf("warm-up records %d (want 60), measured cases %d (want 2)", warm, len(measured))
	}
	if len(rep.Cases) != 2 {
		t.Fatalf("report has %d cases", len(rep.Cases))
	}
	for _, row := range rep.Cases {
		rs := measured[row.ID]
		if len(rs) != 60 {
			t.Fatalf("%s: %d measured records, want 60", row.ID, len(rs))
		}
		// Recompute Payments/s from the raw records: payments / measured time.
		var total float64
		for it := 0; it < 2; it++ {
			var first, last time.Time
			seqs := map[int]bool{}
			for _, r := range rs {
				if r.Iteration != it {
					continue
				}
				seqs[r.Seq] = true
				if first.IsZero() || r.Start.Before(first) {
					first = r.Start
				}
				if r.End.After(last) {
					last = r.End
				}
			}
			if len(seqs) != 30 {
				t.Errorf("%s iteration %d: %d distinct seqs, want 30", row.ID, it, len(seqs))
			}
			total += last.Sub(first).Seconds()
		}
		want := 60 / total
		if math.Abs(row.PaymentsPerSec-want) > 1e-9*want {
			t.Errorf("%s: Payments/s %.6f, want %.6f", row.ID, row.PaymentsPerSec, want)
		}
		if row.Time.N != 2 || math.Abs(row.Time.Mean-total/2) > 1e-9 {
			t.Errorf("%s: iteration stats %+v, want mean %.6f", row.ID, row.Time, total/2)
		}
		t.Logf("%s: %.1f payments/s, p50 %.1f ms", row.ID, row.PaymentsPerSec, row.Latency.P50)
	}
	for _, f := range []string{"summary.md", "summary.csv", "summary.json", "scenario.yml", "nodes/launch1/alice/lnd.log", "nodes/launch1/alice/args.txt", "nodes/launch1/btcd/btcd.log"} {
		if _, err := os.Stat(filepath.Join(run.Dir, f)); err != nil {
			t.Errorf("artifact missing: %v", err)
		}
	}
	if len(rep.Setup) != 5 {
		t.Errorf("setup phases %+v", rep.Setup)
	}
	plots := strings.Join(report.PlotFiles(run.Dir), " ")
	for _, want := range []string{"plot-iteration-times.png", "plot-latency-cdf.png", "plot-throughput-timeline.png"} {
		if !strings.Contains(plots, want) {
			t.Errorf("plot %s not drawn; the folder has %q", want, plots)
		}
	}
}
