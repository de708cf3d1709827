package recovery

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/internal/simulate"
	"github.com/lnbench/lnbench/record/result"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func val[T any](t *testing.T, name string, p *T) T {
	t.Helper()
	if p == nil {
		t.Fatalf("%s absent", name)
	}
	return *p
}

func hasWarning(f Fault, part string) bool {
	for _, w := range f.Warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}

func TestRestart(t *testing.T) {
	recs, fs := simulate.Fixture(t0)
	got := Analyze(recs, fs, Default)
	if len(got) != 2 {
		t.Fatalf("%d faults", len(got))
	}
	f := got[0]
	t.Logf("%+v", f)
	// Odd workers: the in-flight payment and one per second until bob
	// answers (5 each), then NO_ROUTE every 0.3 s until channels are active.
	if f.Errored != 12 || f.Failed != 10 || f.TimedOut != 0 || f.Aborted != 0 {
		t.Errorf("errored/failed/timeout/aborted = %d/%d/%d/%d, want 12/10/0/0", f.Errored, f.Failed, f.TimedOut, f.Aborted)
	}
	if s := val(t, "stalled", f.Stalled); s != 2 {
		t.Errorf("stalled = %d, want the 2 payments hung over the restart", s)
	}
	if !f.EffectEnd.Equal(fs[0].ChannelsActive) {
		t.Errorf("effect end %v, want channels active %v", f.EffectEnd, fs[0].ChannelsActive)
	}
	// 4 workers at ~212 ms a payment.
	if b := val(t, "before", f.BeforePerSec); math.Abs(b-18.9) > 0.5 || f.BeforeSeconds != 10 {
		t.Errorf("before = %.2f/s over %.1f s, want ≈18.9 over 10", b, f.BeforeSeconds)
	}
	// Channels at 18.5 s, 2 s slower, so the first 3 s window at ≥ 90%
	// starts between 19 and 20.5 s: 2–3.5 s after the end at 17 s.
	if f.Recovery != Recovered || math.Abs(val(t, "recovery", f.RecoverySeconds)-2.75) > 0.75 {
		t.Errorf("recovery %s %v, want recovered after 2–3.5 s", f.Recovery, f.RecoverySeconds)
	}
	if val(t, "after end", f.ChannelsAfterEnd) != 1.5 || val(t, "after start", f.ChannelsAfterStart) != 6.5 {
		t.Errorf("channels after end/start = %v/%v, want 1.5/6.5", *f.ChannelsAfterEnd, *f.ChannelsAfterStart)
	}
	if f.StartOffset != 12 || val(t, "end offset", f.EndOffset) != 17 || val(t, "duration", f.Duration) != 5 {
		t.Errorf("offsets %v %v %v", f.StartOffset, *f.EndOffset, *f.Duration)
	}
	// Nothing succeeded within the fault: the one warning is its latency.
	if len(f.Warnings) != 1 || !hasWarning(f, "latency during the fault: 0 successful payment(s)") {
		t.Errorf("warnings %q", f.Warnings)
	}
}

func TestDelayShiftsLatencyByItsSize(t *testing.T) {
	recs, fs := simulate.Fixture(t0)
	f := Analyze(recs, fs, Default)[1]
	before, during, after := val(t, "before", f.LatencyBefore.P50), val(t, "during", f.LatencyDuring.P50), val(t, "after", f.LatencyAfter.P50)
	if d := during - before; math.Abs(d-50) > 3 {
		t.Errorf("median shift %.1f ms, want 50", d)
	}
	if math.Abs(after-before) > 3 {
		t.Errorf("after %.1f ms, before %.1f ms: the delay was removed", after, before)
	}
	if f.Failures() != 0 || val(t, "stalled", f.Stalled) != 0 {
		t.Errorf("failures %d stalled %d, want none", f.Failures(), *f.Stalled)
	}
	if f.Recovery != Recovered || val(t, "recovery", f.RecoverySeconds) > 0.5 {
		t.Errorf("recovery %s %v, want at once", f.Recovery, f.RecoverySeconds)
	}
	if f.ChannelsAfterEnd != nil || f.ChannelsAfterStart != nil {
		t.Error("channel times for a delay")
	}
}

func healthyCase(id string, workers int, m simulate.Model) simulate.Case {
	return simulate.Case{ID: id, Origin: t0, Iterations: 3, PerIteration: 50 * workers, Workers: workers,
		Latency: 200 * time.Millisecond, Model: m}
}

func TestNeverRecovered(t *testing.T) {
	// Half the workers' payments fail from 12 s on, for good.
	start := t0.Add(12 * time.Second)
	m := func(w int, s time.Time, normal time.Duration) simulate.Attempt {
		if w%2 == 1 && !s.Before(start) {
			return simulate.Attempt{Status: result.Failed, Reason: "FAILURE_REASON_NO_ROUTE", Latency: normal}
		}
		return simulate.Attempt{Status: result.Succeeded, Latency: normal}
	}
	recs := healthyCase("C=4", 4, m).Payments()
	f := Analyze(recs, []faults.Record{{Case: "C=4", Kind: faults.Loss, Target: "carol", Start: start, End: t0.Add(15 * time.Second)}}, Default)[0]
	if f.Recovery != NotRecovered || f.RecoverySeconds != nil || !hasWarning(f, "not back within 10% by the case's last payment") {
		t.Errorf("recovery %s %v, want %q; warnings %q", f.Recovery, f.RecoverySeconds, NotRecovered, f.Warnings)
	}
}

func TestTooFewBeforeIsAWarning(t *testing.T) {
	recs := healthyCase("C=1", 1, simulate.Healthy).Payments()
	f := Analyze(recs, []faults.Record{{Case: "C=1", Kind: faults.Pause, Target: "bob", Start: t0.Add(time.Second), End: t0.Add(3 * time.Second)}}, Default)[0]
	if f.BeforePerSec != nil || f.Recovery != NotMeasured || f.LatencyBefore.P50 != nil || f.Stalled != nil {
		t.Errorf("figures from 1 s of one worker: %+v", f)
	}
	for _, w := range []string{"less than one 3 s window", "latency before the fault: 4 successful payment(s), too few", "stalled payments not counted"} {
		if !hasWarning(f, w) {
			t.Errorf("warnings %q lack %q", f.Warnings, w)
		}
	}
	// Enough time but too few payments: one slow worker.
	slow := healthyCase("C=1", 1, func(_ int, _ time.Time, _ time.Duration) simulate.Attempt {
		return simulate.Attempt{Status: result.Succeeded, Latency: 2 * time.Second}
	}).Payments()
	f = Analyze(slow, []faults.Record{{Case: "C=1", Kind: faults.Pause, Start: t0.Add(15 * time.Second), End: t0.Add(16 * time.Second)}}, Default)[0]
	if f.BeforePerSec != nil || !hasWarning(f, "too few for a pre-fault throughput (need 10)") {
		t.Errorf("before %v, warnings %q", f.BeforePerSec, f.Warnings)
	}
}

// A kill has no end: its recovery counts from the kill, recovered when
// the traffic did not need the node (or routed around it), never when
// every later payment fails.
func TestKillHasNoEnd(t *testing.T) {
	kill := t0.Add(15 * time.Second)
	recs := healthyCase("C=2", 2, simulate.Healthy).Payments()
	f := Analyze(recs, []faults.Record{{Case: "C=2", Kind: faults.Kill, Target: "dave", Start: kill}}, Default)[0]
	if f.EndOffset != nil || f.Duration != nil || !hasWarning(f, "a kill has no end") || f.BeforePerSec == nil {
		t.Errorf("kill: %+v", f)
	}
	if f.Recovery != Recovered || val(t, "recovery", f.RecoverySeconds) > 0.5 {
		t.Errorf("a kill the traffic did not feel: recovery %s %v, want recovered at once", f.Recovery, f.RecoverySeconds)
	}
	dead := func(_ int, s time.Time, normal time.Duration) simulate.Attempt {
		if !s.Before(kill) {
			return simulate.Attempt{Status: result.Error, Reason: "invoice: bob: connection refused", Latency: time.Millisecond}
		}
		return simulate.Attempt{Status: result.Succeeded, Latency: normal}
	}
	recs = healthyCase("C=2", 2, dead).Payments()
	f = Analyze(recs, []faults.Record{{Case: "C=2", Kind: faults.Kill, Target: "bob", Start: kill}}, Default)[0]
	if f.Recovery != NotRecovered || f.RecoverySeconds != nil || !hasWarning(f, "after the fault's start") || f.Errored == 0 {
		t.Errorf("a killed payee: recovery %s %v, errored %d, warnings %q", f.Recovery, f.RecoverySeconds, f.Errored, f.Warnings)
	}
}

func TestRestartChannelsNeverActive(t *testing.T) {
	recs := healthyCase("C=2", 2, simulate.Healthy).Payments()
	f := Analyze(recs, []faults.Record{{Case: "C=2", Kind: faults.Restart, Target: "bob", Start: t0.Add(15 * time.Second), End: t0.Add(16 * time.Second),
		Error: "channels of the restarted node not all active within 2m0s: context deadline exceeded"}}, Default)[0]
	if f.ChannelsAfterEnd != nil || f.ChannelsAfterStart != nil || !hasWarning(f, "channels of the restarted node not all active") {
		t.Errorf("restart without channels: %+v", f)
	}
	if !f.EffectEnd.Equal(t0.Add(16*time.Second)) || f.Recovery != Recovered {
		t.Errorf("effect end %v, recovery %s", f.EffectEnd, f.Recovery)
	}
}

func TestRecordWithoutCase(t *testing.T) {
	a := healthyCase("C=1", 1, simulate.Healthy)
	b := healthyCase("C=2", 2, simulate.Healthy)
	b.Origin = t0.Add(time.Hour)
	recs := append(a.Payments(), b.Payments()...)
	f := Analyze(recs, []faults.Record{{Kind: faults.Delay, Target: "bob", Spec: "delay bob 50ms jitter 5ms at 15s for 2s",
		Start: b.Origin.Add(15 * time.Second), End: b.Origin.Add(17 * time.Second)}}, Default)[0]
	if f.Case != "C=2" || f.StartOffset != 15 {
		t.Errorf("case %q at %v, want C=2 at 15", f.Case, f.StartOffset)
	}
	if l := f.Label(); l != "delay bob 50ms jitter 5ms" {
		t.Errorf("label %q", l)
	}
}

func TestBadTimes(t *testing.T) {
	recs := healthyCase("C=2", 2, simulate.Healthy).Payments()
	fs := []faults.Record{
		{Case: "C=2", Kind: faults.Pause, Target: "bob", Error: "docker pause: no such container"},
		{Case: "C=2", Kind: faults.Pause, Target: "bob", Start: t0.Add(15 * time.Second), End: t0.Add(14 * time.Second)},
	}
	got := Analyze(recs, fs, Default)
	if len(got[0].Warnings) != 1 || !hasWarning(got[0], "docker pause: no such container") || got[0].BeforePerSec != nil {
		t.Errorf("no start: %+v", got[0])
	}
	if !hasWarning(got[1], "before start") || got[1].Duration != nil || got[1].Recovery != NotMeasured {
		t.Errorf("end before start: %+v", got[1])
	}
}

func TestNoPaymentsAndInjectionError(t *testing.T) {
	f := Analyze(nil, []faults.Record{{Case: "C=9", Kind: faults.Delay, Target: "carol", Start: t0, Error: "tc: RTNETLINK answers: Operation not permitted"}}, Default)[0]
	if !hasWarning(f, "tc: RTNETLINK") || !hasWarning(f, `no payments recorded for case "C=9"`) || f.Recovery != NotMeasured {
		t.Errorf("warnings %q", f.Warnings)
	}
}
