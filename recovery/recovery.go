// Package recovery measures what each injected fault did to the payments
// around it: payments failed or stalled during it, the throughput before
// it and how long after its end that throughput came back, when a
// restarted node's channels were active again, and the latency before,
// during and after. Figures it cannot give honestly (too few payments, no
// end recorded) are absent, with a warning saying why.
package recovery

import (
	"fmt"
	"strings"
	"time"

	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/record/result"
)

// Params are the windows and thresholds of the analysis; Default is what
// reports use, and the report legend states them.
type Params struct {
	// Before is the window before the fault's start whose successful
	// payments give the pre-fault throughput and latency; the "after"
	// latency window is as long, from the fault's end.
	Before time.Duration
	// Window is the rolling window the recovery search counts payments in;
	// Step is how far it slides each time (the recovery time's resolution).
	Window, Step time.Duration
	// Tolerance: recovered means a window's throughput is at least
	// (1−Tolerance) × the pre-fault throughput.
	Tolerance float64
	// StallFactor: a payment in flight during the fault is stalled when it
	// succeeded but took more than StallFactor × the latency the fault
	// predicts for it: the pre-fault median, plus for a delay the round
	// trips it adds (predictedAdded).
	StallFactor float64
	// MinBaseline is the fewest successful payments before the fault that
	// give a pre-fault throughput; MinLatency the fewest for a percentile.
	MinBaseline, MinLatency int
}

// Default: a 10 s baseline, recovery in 3 s windows sliding by 100 ms,
// back within 10%, stalled beyond 3× the predicted latency.
var Default = Params{Before: 10 * time.Second, Window: 3 * time.Second, Step: 100 * time.Millisecond,
	Tolerance: 0.10, StallFactor: 3, MinBaseline: 10, MinLatency: 5}

// Recovery outcomes.
const (
	Recovered    = "recovered"
	NotRecovered = "not recovered within the run"
	NotMeasured  = "not measured"
)

// Latency is the successful payments' latency in one window (ms); the
// percentiles are absent when the window holds fewer than MinLatency.
type Latency struct {
	N   int      `json:"n"`
	P50 *float64 `json:"p50_ms,omitempty"`
	P99 *float64 `json:"p99_ms,omitempty"`
}

// Fault is one injected fault with what it did. Offsets are seconds since
// the case's first measured payment started: the throughput timeline's axis.
type Fault struct {
	faults.Record
	StartOffset float64  `json:"start_offset_s"`
	EndOffset   *float64 `json:"end_offset_s,omitempty"`
	Duration    *float64 `json:"duration_s,omitempty"`
	// EffectEnd closes the window payments are counted in: End, or the
	// case's last payment when the fault never ended, or ChannelsActive
	// when a restarted node's channels came back later than its RPC.
	EffectEnd time.Time `json:"effect_end"`
	// Payments that did not succeed and were in flight during [Start, EffectEnd].
	Failed   int `json:"failed"`
	Errored  int `json:"errored"`
	TimedOut int `json:"timed_out"`
	Aborted  int `json:"aborted"`
	// Stalled counts succeeded payments in flight during the fault that
	// took more than StallFactor × their predicted latency: the pre-fault
	// median plus PredictedAddedMs, what a delay adds to a payment through
	// its target (0 for other faults and payments elsewhere).
	// StallThresholdMs is the bound for a payment through the target. All
	// absent without a pre-fault median.
	Stalled          *int     `json:"stalled,omitempty"`
	StallThresholdMs *float64 `json:"stall_threshold_ms,omitempty"`
	PredictedAddedMs *float64 `json:"predicted_added_ms,omitempty"`
	// BeforePerSec is the successful payments/s in the BeforeSeconds (at
	// most Params.Before, less when the case started later) before Start.
	BeforePerSec  *float64 `json:"before_payments_per_s,omitempty"`
	BeforeSeconds float64  `json:"before_window_s"`
	// Recovery is Recovered (RecoverySeconds after End), NotRecovered or NotMeasured.
	Recovery        string   `json:"recovery"`
	RecoverySeconds *float64 `json:"recovery_s,omitempty"`
	// ChannelsAfterEnd/AfterStart: ChannelsActive − End and − Start.
	ChannelsAfterEnd   *float64 `json:"channels_active_after_end_s,omitempty"`
	ChannelsAfterStart *float64 `json:"channels_active_after_start_s,omitempty"`
	LatencyBefore      Latency  `json:"latency_before"`
	LatencyDuring      Latency  `json:"latency_during"`
	LatencyAfter       Latency  `json:"latency_after"`
	Warnings           []string `json:"warnings,omitempty"`
}

// Label names the fault in a few words: its spec without the trigger and
// duration ("delay bob 50ms"), the report giving those as numbers; kind
// and target when there is no spec.
func (f Fault) Label() string {
	if f.Spec == "" {
		return f.Kind + " " + f.Target
	}
	label := f.Spec
	for _, sep := range []string{" at ", " after ", " for "} {
		label, _, _ = strings.Cut(label, sep)
	}
	return label
}

// Failures is every payment in flight during the fault that did not succeed.
func (f Fault) Failures() int { return f.Failed + f.Errored + f.TimedOut + f.Aborted }

// Analyze gives each fault, in order, its figures from the payments of its
// case; a record naming no case belongs to the case running at its start.
func Analyze(recs []result.Record, fs []faults.Record, p Params) []Fault {
	byCase := map[string][]result.Record{}
	var order []string
	for _, r := range recs {
		if _, ok := byCase[r.Case]; !ok {
			order = append(order, r.Case)
		}
		byCase[r.Case] = append(byCase[r.Case], r)
	}
	var out []Fault
	for _, fr := range fs {
		if fr.Case == "" {
			fr.Case = caseAt(byCase, order, fr.Start)
		}
		out = append(out, analyzeOne(fr, byCase[fr.Case], p))
	}
	return out
}

// caseAt is the case whose payments span t ("" when none does).
func caseAt(byCase map[string][]result.Record, order []string, t time.Time) string {
	for _, id := range order {
		if _, first, last := span(byCase[id]); !t.Before(first) && !t.After(last) {
			return id
		}
	}
	return ""
}

func analyzeOne(fr faults.Record, pays []result.Record, p Params) Fault {
	f := Fault{Record: fr, Recovery: NotMeasured}
	warn := func(format string, a ...any) { f.Warnings = append(f.Warnings, fmt.Sprintf(format, a...)) }
	if fr.Start.IsZero() { // never took effect: the error says why
		if fr.Error == "" {
			fr.Error = "no start recorded: the fault never took effect"
		}
		warn("%s", fr.Error)
		return f
	}
	if fr.Error != "" {
		warn("%s", fr.Error) // the runner words it: "kill: …", "clearing delay: …"
	}
	if len(pays) == 0 {
		warn("no payments recorded for case %q: nothing to measure", fr.Case)
		return f
	}
	if !fr.End.IsZero() && fr.End.Before(fr.Start) {
		warn("end %s before start %s: end ignored", fr.End.Format(time.RFC3339Nano), fr.Start.Format(time.RFC3339Nano))
		fr.End, f.End = time.Time{}, time.Time{}
	}
	origin, first, last := span(pays)
	sec := func(t time.Time) float64 { return t.Sub(origin).Seconds() }
	f.StartOffset = sec(fr.Start)
	end := fr.End
	if end.IsZero() {
		if fr.Kind == faults.Kill {
			warn("a kill has no end: counted until the case's last payment; recovery counted from the kill")
		} else {
			warn("no end recorded (the run ended first): counted until the case's last payment; recovery not measured")
		}
		end = last
	} else {
		f.EndOffset, f.Duration = ptr(sec(fr.End)), ptr(fr.End.Sub(fr.Start).Seconds())
	}
	f.EffectEnd = end
	if !fr.ChannelsActive.IsZero() {
		f.ChannelsAfterStart = ptr(fr.ChannelsActive.Sub(fr.Start).Seconds())
		if !fr.End.IsZero() {
			f.ChannelsAfterEnd = ptr(fr.ChannelsActive.Sub(fr.End).Seconds())
		}
		if fr.ChannelsActive.After(f.EffectEnd) {
			f.EffectEnd = fr.ChannelsActive
		}
	}
	// A restart without ChannelsActive is the chain (no channels) or a node
	// whose channels did not come back: the runner's Error says which.
	countFailures(&f, pays)
	bStart := fr.Start.Add(-p.Before)
	if bStart.Before(first) {
		bStart = first
	}
	f.BeforeSeconds = fr.Start.Sub(bStart).Seconds()
	measureLatency(&f, pays, bStart, p, warn)
	countStalled(&f, pays, p, warn)
	measureThroughput(&f, pays, bStart, last, p, warn)
	return f
}

// measureLatency fills the latency before (payments in [bStart, Start)),
// wholly during [Start, EffectEnd], and started within Before after it.
func measureLatency(f *Fault, pays []result.Record, bStart time.Time, p Params, warn func(string, ...any)) {
	f.LatencyBefore = latencyOf(pays, func(r result.Record) bool { return !r.Start.Before(bStart) && r.End.Before(f.Start) }, p.MinLatency)
	f.LatencyDuring = latencyOf(pays, func(r result.Record) bool { return !r.Start.Before(f.Start) && !r.End.After(f.EffectEnd) }, p.MinLatency)
	aEnd := f.EffectEnd.Add(p.Before)
	f.LatencyAfter = latencyOf(pays, func(r result.Record) bool { return !r.Start.Before(f.EffectEnd) && r.Start.Before(aEnd) }, p.MinLatency)
	for i, l := range []Latency{f.LatencyBefore, f.LatencyDuring, f.LatencyAfter} {
		if l.P50 == nil {
			warn("latency %s the fault: %d successful payment(s), too few for percentiles (need %d)", []string{"before", "during", "after"}[i], l.N, p.MinLatency)
		}
	}
}

// countStalled counts the succeeded payments in flight during the fault
// that took longer than StallFactor × their predicted latency.
func countStalled(f *Fault, pays []result.Record, p Params, warn func(string, ...any)) {
	med := f.LatencyBefore.P50
	if med == nil {
		warn("no pre-fault median latency: stalled payments not counted")
		return
	}
	n, most := 0, 0.0
	for _, r := range pays {
		if r.Status != result.Succeeded || !inFlight(r, f.Start, f.EffectEnd) {
			continue
		}
		added := ms(predictedAdded(f.Record, r))
		most = max(most, added)
		if ms(r.Latency()) > p.StallFactor*(*med+added) {
			n++
		}
	}
	thr := p.StallFactor * (*med + most)
	f.StallThresholdMs, f.Stalled = &thr, &n
	if f.Kind == faults.Delay {
		f.PredictedAddedMs = &most
	}
}

// measureThroughput fills the throughput before the fault and, when the
// fault ended (or for a kill, from its start), the time until it was back.
func measureThroughput(f *Fault, pays []result.Record, bStart, last time.Time, p Params, warn func(string, ...any)) {
	okBefore := successesIn(pays, bStart, f.Start)
	switch {
	case f.BeforeSeconds < p.Window.Seconds():
		warn("the case started %.1f s before the fault, less than one %.0f s window: no pre-fault throughput", f.BeforeSeconds, p.Window.Seconds())
		return
	case okBefore < p.MinBaseline:
		warn("%d successful payment(s) in the %.1f s before the fault, too few for a pre-fault throughput (need %d)", okBefore, f.BeforeSeconds, p.MinBaseline)
		return
	}
	f.BeforePerSec = ptr(float64(okBefore) / f.BeforeSeconds)
	// A kill never ends: the traffic comes back when it routes around the
	// dead node, or never, so its recovery counts from the kill.
	from, what := f.End, "end"
	switch {
	case from.IsZero() && f.Kind == faults.Kill:
		from, what = f.Start, "start"
	case from.IsZero():
		return
	}
	f.Recovery = NotRecovered
	if t, ok := recoveredAt(pays, from, last, *f.BeforePerSec, p); ok {
		f.Recovery, f.RecoverySeconds = Recovered, ptr(t.Sub(from).Seconds())
	} else {
		warn("throughput not back within %.0f%% by the case's last payment, %.1f s after the fault's %s", 100*p.Tolerance, last.Sub(from).Seconds(), what)
	}
}

func ptr[T any](v T) *T { return &v }
