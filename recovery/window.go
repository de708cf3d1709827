package recovery

import (
	"slices"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/stats"
)

// span is the case's timeline origin (its first measured payment's start,
// else its first payment's), its first start and its last end.
func span(pays []result.Record) (origin, first, last time.Time) {
	first, last = pays[0].Start, pays[0].End
	for _, r := range pays {
		if r.Start.Before(first) {
			first = r.Start
		}
		if r.End.After(last) {
			last = r.End
		}
		if r.Phase == result.Measure && (origin.IsZero() || r.Start.Before(origin)) {
			origin = r.Start
		}
	}
	if origin.IsZero() {
		origin = first
	}
	return origin, first, last
}

// inFlight: started before to and ended at or after from.
func inFlight(r result.Record, from, to time.Time) bool {
	return r.Start.Before(to) && !r.End.Before(from)
}

// countFailures counts the payments in flight during the fault that did
// not succeed, by status.
func countFailures(f *Fault, pays []result.Record) {
	for _, r := range pays {
		if !inFlight(r, f.Start, f.EffectEnd) {
			continue
		}
		switch r.Status {
		case result.Failed:
			f.Failed++
		case result.Error:
			f.Errored++
		case result.TimedOut:
			f.TimedOut++
		case result.Aborted:
			f.Aborted++
		}
	}
}

// successesIn counts successful payments that ended in [from, to).
func successesIn(pays []result.Record, from, to time.Time) int {
	n := 0
	for _, r := range pays {
		if r.Status == result.Succeeded && !r.End.Before(from) && r.End.Before(to) {
			n++
		}
	}
	return n
}

// recoveredAt slides a Window-long window from end in Steps and returns
// the start of the first one whose successful payments/s reach
// (1−Tolerance) × before; false when none does before the case's last
// payment (the window must fit within the case). Only payments started
// after the fault's end count: those it held up finish in a burst when
// it ends, which is backlog, not recovered throughput.
func recoveredAt(pays []result.Record, end, last time.Time, before float64, p Params) (time.Time, bool) {
	var ends []time.Time // successes' ends, sorted: each window is two binary searches
	for _, r := range pays {
		if r.Status == result.Succeeded && !r.Start.Before(end) {
			ends = append(ends, r.End)
		}
	}
	slices.SortFunc(ends, time.Time.Compare)
	idx := func(t time.Time) int {
		i, _ := slices.BinarySearchFunc(ends, t, time.Time.Compare)
		return i // first end ≥ t
	}
	need := (1 - p.Tolerance) * before * p.Window.Seconds()
	for t := end; !t.Add(p.Window).After(last); t = t.Add(p.Step) {
		if float64(idx(t.Add(p.Window))-idx(t)) >= need {
			return t, true
		}
	}
	return time.Time{}, false
}

// latencyOf is the latency of the successful payments keep selects.
func latencyOf(pays []result.Record, keep func(result.Record) bool, minN int) Latency {
	var xs []float64
	for _, r := range pays {
		if r.Status == result.Succeeded && keep(r) {
			xs = append(xs, ms(r.Latency()))
		}
	}
	l := Latency{N: len(xs)}
	if len(xs) >= minN && len(xs) > 0 {
		ps := stats.Percentiles(xs, 50, 99)
		l.P50, l.P99 = &ps[0], &ps[1]
	}
	return l
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
