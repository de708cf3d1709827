package report

import (
	"encoding/csv"
	"io"
	"strconv"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/usage/cost"
)

// Resource CSV file names in the artifacts folder.
const (
	ResourcesCSVName        = "resources.csv"
	ResourceTimelineCSVName = "resources-timeline.csv"
)

// ResourcesCSV writes the Resources tables with full-precision numbers, one
// row per case and actor; the case's ceiling and verdict repeat on each of
// its rows so every row stands alone. NA marks what was not measured.
func ResourcesCSV(w io.Writer, r Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"Case", "Actor", "Role", "Source", "SampledSeconds", "Payments", "CPUSeconds", "CPUMsPerPayment", "CPUs",
		"CPULimit", "CPULimitIsHost", "CPUUtilisation", "RSSPeakBytes", "MemLimitBytes", "SyncsPerPayment", "SyncsPerSec",
		"WriteBytes", "WriteBytesPerPayment", "WriteSource", "DBGrowthBytes", "DBGrowthBytesPerPayment",
		"HarnessShare", "CeilingPaymentsPerSec", "MeasuredPaymentsPerSec", "CeilingUtilisation", "Bound", "Verdict"}); err != nil {
		return err
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	na := func(ok bool, v float64) string {
		if !ok {
			return "NA"
		}
		return g(v)
	}
	for _, c := range r.Resources {
		ceil, measured, util := "NA", "NA", "NA"
		if cl := c.Ceiling; cl != nil {
			ceil, measured, util = g(cl.PaymentsPerSec), g(cl.Measured), g(cl.Utilisation)
		}
		for _, a := range c.Actors {
			row := []string{c.ID, a.Name, a.Role, a.Source, g(a.Seconds), strconv.Itoa(a.Payments), g(a.CPUSeconds), g(a.CPUMsPerPayment), g(a.CPUs),
				na(a.Limit > 0, a.Limit), strconv.FormatBool(a.LimitIsHost), na(a.Limit > 0, a.Utilisation), strconv.FormatInt(a.RSSPeakBytes, 10),
				na(a.MemLimitBytes > 0, float64(a.MemLimitBytes)), na(a.SyncsCounted, a.SyncsPerPayment), na(a.SyncsCounted, a.SyncsPerSec),
				naIf(a.WritesNotMeasurable, strconv.FormatInt(a.WriteBytes, 10)), na(!a.WritesNotMeasurable, a.WriteBytesPerPayment), writeSource(a), na(a.DBGrowthKnown, float64(a.DBGrowthBytes)), na(a.DBGrowthKnown, a.DBGrowthBytesPerPayment),
				na(c.HasHarnessShare, c.HarnessShare), ceil, measured, util, c.Verdict.Bound, c.Verdict.Text}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeSource is the CSV's WriteSource: where the written bytes came from,
// "not measurable on this host" (WriteBytes and WriteBytesPerPayment are
// NA then), or NA for streams that did not record it.
func writeSource(a cost.Actor) string {
	switch {
	case a.WritesNotMeasurable:
		return NotMeasurable + " on this host"
	case a.WriteSource == "":
		return "NA"
	}
	return a.WriteSource
}

// ResourceTimelineCSV writes each actor's CPU and sync rate per sample
// interval, timed as the throughput timeline is: seconds since the case's
// first measured payment started (plots.R draws both on that axis).
func ResourceTimelineCSV(w io.Writer, r Report, recs []result.Record) error {
	origin := map[string]time.Time{}
	for _, rec := range recs {
		if rec.Phase != result.Measure {
			continue
		}
		if o, ok := origin[rec.Case]; !ok || rec.Start.Before(o) {
			origin[rec.Case] = rec.Start
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"case", "actor", "role", "second", "interval_s", "cpu_cores", "cpu_limit", "cpu_percent", "syncs_per_second"}); err != nil {
		return err
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for _, c := range r.Resources {
		o, ok := origin[c.ID]
		if !ok {
			continue
		}
		for _, p := range c.Timeline {
			pct, syncs := "NA", "NA"
			if p.Limit > 0 {
				pct = g(100 * p.CPUs / p.Limit)
			}
			if p.SyncsPerSec >= 0 {
				syncs = g(p.SyncsPerSec)
			}
			if err := cw.Write([]string{c.ID, p.Actor, p.Role, g(p.End.Sub(o).Seconds()), g(p.Seconds), g(p.CPUs), g(p.Limit), pct, syncs}); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
