package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/lnbench/lnbench/result"
)

// CSV writes the summary with full-precision numbers in seconds, one row per
// case (the R plot exporter reads this file).
func CSV(w io.Writer, r Report) error {
	cw := csv.NewWriter(w)
	head := []string{"Method"}
	if len(r.Cases) > 0 {
		for _, p := range r.Cases[0].Params {
			head = append(head, p.Name)
		}
	}
	head = append(head, "Iterations", "Mean_s", "Error_s", "StdDev_s", "Median_s", "Min_s", "Q1_s", "Q3_s", "Max_s",
		"PaymentsPerSec", "Payments", "Succeeded", "Failed", "LatencyP50_ms", "LatencyP90_ms", "LatencyP99_ms", "LatencyMax_ms",
		// Appended, so readers by position keep working; plots.R joins on Case
		// and divides wall time by InvocationCount like the analysis does.
		"CV", "LatencyMin_ms", "Case", "InvocationCount")
	if err := cw.Write(head); err != nil {
		return err
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	for _, c := range r.Cases {
		row := []string{c.Method}
		for _, p := range c.Params {
			row = append(row, p.Value)
		}
		t := c.Time
		row = append(row, strconv.Itoa(t.N), g(t.Mean), g(t.Error), g(t.StdDev), g(t.Median), g(t.Min), g(t.Q1), g(t.Q3), g(t.Max),
			g(c.PaymentsPerSec), strconv.Itoa(c.Payments), strconv.Itoa(c.Succeeded), strconv.Itoa(c.Failed),
			g(c.Latency.P50), g(c.Latency.P90), g(c.Latency.P99), g(c.Latency.Max),
			g(c.Spread.CV), g(c.Latency.Min), c.ID, strconv.Itoa(max(1, r.Scenario.Job.InvocationCount)))
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

// MeasurementsCSV writes every payment record.
func MeasurementsCSV(w io.Writer, recs []result.Record) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"case", "phase", "iteration", "worker", "seq", "payer", "payee", "mode", "start_unix_ns", "end_unix_ns",
		"latency_ms", "invoice_ms", "payment_ms", "status", "failure_reason", "hops"}); err != nil {
		return err
	}
	ms := func(ns int64) string { return strconv.FormatFloat(float64(ns)/1e6, 'f', 3, 64) }
	for _, r := range recs {
		if err := cw.Write([]string{r.Case, r.Phase, strconv.Itoa(r.Iteration), strconv.Itoa(r.Worker), strconv.Itoa(r.Seq), r.Payer, r.Payee, r.Mode,
			strconv.FormatInt(r.Start.UnixNano(), 10), strconv.FormatInt(r.End.UnixNano(), 10), ms(r.Latency().Nanoseconds()),
			ms(r.InvoiceNs), ms(r.PaymentNs), r.Status, r.FailureReason, fmt.Sprint(r.Hops)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
