package report

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/lnbench/lnbench/recovery"
)

// FaultsCSV writes one row per fault with full-precision figures; NA marks
// a figure the analysis could not give (its warning is in summary.json).
func FaultsCSV(w io.Writer, r Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"Network", "Case", "Iteration", "Kind", "Target", "Spec", "Label", "Mechanism", "Direction", "Exempt", "Scheduled", "Start", "StartOffset_s", "EndOffset_s", "Duration_s",
		"EffectEndOffset_s", "Failed", "Errored", "TimedOut", "Aborted", "Stalled", "StallThreshold_ms", "PredictedAdded_ms", "BeforePaymentsPerSec", "BeforeWindow_s",
		"Recovery", "Recovery_s", "ChannelsActiveAfterEnd_s", "ChannelsActiveAfterStart_s",
		"LatencyBefore_n", "LatencyBeforeP50_ms", "LatencyBeforeP99_ms", "LatencyDuring_n", "LatencyDuringP50_ms", "LatencyDuringP99_ms",
		"LatencyAfter_n", "LatencyAfterP50_ms", "LatencyAfterP99_ms", "Error"}); err != nil {
		return err
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	na := func(v *float64) string {
		if v == nil {
			return "NA"
		}
		return g(*v)
	}
	lat := func(l recovery.Latency) []string { return []string{strconv.Itoa(l.N), na(l.P50), na(l.P99)} }
	for _, f := range r.Faults {
		stalled := "NA"
		if f.Stalled != nil {
			stalled = strconv.Itoa(*f.Stalled)
		}
		start, offset, effect := "NA", "NA", "NA" // never took effect: nothing to draw
		if !f.Start.IsZero() {
			start, offset = f.Start.UTC().Format(time.RFC3339Nano), g(f.StartOffset)
		}
		if !f.Start.IsZero() && !f.EffectEnd.IsZero() {
			effect = g(f.StartOffset + f.EffectEnd.Sub(f.Start).Seconds()) // as far from Start as from the origin
		}
		scheduled := "NA"
		if !f.Scheduled.IsZero() {
			scheduled = f.Scheduled.UTC().Format(time.RFC3339Nano)
		}
		row := []string{f.Network, f.Case, strconv.Itoa(f.Iteration), f.Kind, f.Target, f.Spec, f.Label(),
			f.Mechanism, f.Direction, strings.Join(f.Exempt, "; "), scheduled, start,
			offset, na(f.EndOffset), na(f.Duration), effect, strconv.Itoa(f.Failed), strconv.Itoa(f.Errored),
			strconv.Itoa(f.TimedOut), strconv.Itoa(f.Aborted), stalled, na(f.StallThresholdMs), na(f.PredictedAddedMs), na(f.BeforePerSec), g(f.BeforeSeconds),
			f.Recovery, na(f.RecoverySeconds), na(f.ChannelsAfterEnd), na(f.ChannelsAfterStart)}
		row = append(append(append(append(row, lat(f.LatencyBefore)...), lat(f.LatencyDuring)...), lat(f.LatencyAfter)...), f.Error)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
