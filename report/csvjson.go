package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/lnbench/lnbench/record/result"
)

// CSV writes the summary with full-precision numbers in seconds, one row per
// case (the R plot exporter reads this file). The params sit between Method
// and Iterations; the node spec is always in the Node column (not among the
// params), then Ratio, RatioSD, Verdict and RatioP when there is a baseline,
// and after them the interval, level, sizes and detectable effect; last,
// when any case has cost verdicts, CostVerdict (CostLine, "baseline" on
// the baseline's rows, NA where resources were not sampled).
func CSV(w io.Writer, r Report) error {
	cw := csv.NewWriter(w)
	head := []string{"Method"}
	if len(r.Cases) > 0 {
		for _, p := range r.Cases[0].Params {
			if p.Name != nodeParam { // in the Node column below
				head = append(head, p.Name)
			}
		}
	}
	head = append(head, "Iterations", "Mean_s", "Error_s", "StdDev_s", "Median_s", "Min_s", "Q1_s", "Q3_s", "Max_s",
		"PaymentsPerSec", "Payments", "Succeeded", "Failed", "LatencyP50_ms", "LatencyP90_ms", "LatencyP99_ms", "LatencyMax_ms",
		// Appended, so readers by position keep working; plots.R joins on Case
		// and divides wall time by InvocationCount like the analysis does.
		"CV", "LatencyMin_ms", "Case", "InvocationCount", "Node")
	ratios := r.HasRatios()
	if ratios {
		head = append(head, "Ratio", "RatioSD", "Verdict", "RatioP", "RatioLow", "RatioHigh", "Level", "NBase", "NNew", "Paired", "MDE", "Effect", "LaunchesForEffect")
	}
	costs := slices.ContainsFunc(r.Cases, func(c Row) bool { return len(c.CostVerdicts) > 0 })
	if costs {
		head = append(head, "CostVerdict")
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	for _, c := range r.Cases {
		row := []string{c.Method}
		for _, p := range c.Params {
			if p.Name != nodeParam {
				row = append(row, p.Value)
			}
		}
		t := c.Time
		row = append(row, strconv.Itoa(t.N), g(t.Mean), g(t.Error), g(t.StdDev), g(t.Median), g(t.Min), g(t.Q1), g(t.Q3), g(t.Max),
			g(c.PaymentsPerSec), strconv.Itoa(c.Payments), strconv.Itoa(c.Succeeded), strconv.Itoa(c.Failed),
			g(c.Latency.P50), g(c.Latency.P90), g(c.Latency.P99), g(c.Latency.Max),
			g(c.Spread.CV), g(c.Latency.Min), c.ID, strconv.Itoa(max(1, r.Scenario.Job.InvocationCount)), c.Node)
		if ratios {
			if rt := c.Ratio; rt != nil {
				na := func(v float64) string {
					if v == 0 {
						return "NA"
					}
					return g(v)
				}
				row = append(row, g(rt.Of), g(rt.SD), rt.Verdict, g(rt.P), na(rt.Low), na(rt.High), rt.Level, strconv.Itoa(rt.NBase), strconv.Itoa(rt.NNew),
					strconv.FormatBool(rt.Paired), na(rt.MDE), g(rt.Effect), strconv.Itoa(rt.LaunchesForEffect))
			} else {
				row = append(row, "NA", "NA", VerdictNoBaseline, "NA", "NA", "NA", "NA", "NA", "NA", "NA", "NA", "NA", "NA")
			}
		}
		if costs {
			switch {
			case len(c.CostVerdicts) > 0:
				row = append(row, CostLine(c.CostVerdicts))
			case c.Node == r.BaselineLabel():
				row = append(row, VerdictBaseline)
			default:
				row = append(row, "NA")
			}
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// JSON writes the whole model.
func JSON(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// MeasurementsCSV writes every payment record, with the node spec of its
// case last (the case id names it too when the run compares several).
func MeasurementsCSV(w io.Writer, r Report, recs []result.Record) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"case", "phase", "iteration", "worker", "seq", "payer", "payee", "mode", "start_unix_ns", "end_unix_ns",
		"latency_ms", "invoice_ms", "payment_ms", "status", "failure_reason", "hops", "parts", "attempts", "node"}); err != nil {
		return err
	}
	ms := func(ns int64) string { return strconv.FormatFloat(float64(ns)/1e6, 'f', 3, 64) }
	nodes := map[string]string{}
	for _, rec := range recs {
		node, ok := nodes[rec.Case]
		if !ok {
			// Cases left out of the table (interrupted) still have a spec.
			node = nodeLabelOf(r, caseParams(rec.Case))
			nodes[rec.Case] = node
		}
		if err := cw.Write([]string{rec.Case, rec.Phase, strconv.Itoa(rec.Iteration), strconv.Itoa(rec.Worker), strconv.Itoa(rec.Seq), rec.Payer, rec.Payee, rec.Mode,
			strconv.FormatInt(rec.Start.UnixNano(), 10), strconv.FormatInt(rec.End.UnixNano(), 10), ms(rec.Latency().Nanoseconds()),
			ms(rec.InvoiceNs), ms(rec.PaymentNs), rec.Status, rec.FailureReason, fmt.Sprint(rec.Hops), fmt.Sprint(rec.Parts), fmt.Sprint(rec.Attempts), node}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
