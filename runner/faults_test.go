package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/internal/fakenet"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/scenario"
)

// faultyFake is a fake network that takes faults: kill makes Dead report
// the actor, as a real crash would; the rest are logged.
type faultyFake struct {
	*fakenet.Backend
	mu    sync.Mutex
	calls []string
	eps   map[string]backend.NodeEndpoint
}

func (f *faultyFake) log(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}

func (f *faultyFake) StartNode(ctx context.Context, spec backend.NodeSpec) (backend.NodeEndpoint, error) {
	ep, err := f.Backend.StartNode(ctx, spec)
	f.mu.Lock()
	f.eps[spec.Name] = ep
	f.mu.Unlock()
	return ep, err
}

func (f *faultyFake) Kill(ctx context.Context, name string) error {
	f.log("kill " + name)
	f.Backend.Kill(name)
	return nil
}

func (f *faultyFake) Restart(ctx context.Context, name string) (backend.NodeEndpoint, error) {
	f.log("restart " + name)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.eps[name], nil
}

func (f *faultyFake) Pause(ctx context.Context, name string) error {
	f.log("pause " + name)
	return nil
}
func (f *faultyFake) Resume(ctx context.Context, name string) error {
	f.log("resume " + name)
	return nil
}
func (f *faultyFake) Impair(ctx context.Context, name, peer string, imp backend.Impairment) (backend.Applied, error) {
	f.log("impair " + name + "~" + peer)
	// The rules are in after the trigger fired, as with a helper container.
	time.Sleep(2 * time.Millisecond)
	return backend.Applied{At: time.Now(), Mechanism: "bpf", Direction: "both", Exempt: []string{"harness 10.0.0.1"}}, nil
}
func (f *faultyFake) Clear(ctx context.Context, name, peer string) (time.Time, error) {
	f.log("clear " + name + "~" + peer)
	return time.Now(), nil
}

func readFaults(t *testing.T, run Run) []faults.Record {
	t.Helper()
	out, err := faults.Load(filepath.Join(run.Dir, faults.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFaultsFireAndAreRecorded: every trigger fires during measurement,
// each fault gets one record with its times, a restart is redialled and
// waited for, a kill does not stop the run, and a trigger never reached
// is recorded as such.
func TestFaultsFireAndAreRecorded(t *testing.T) {
	h := &harness{}
	var fake *faultyFake
	s := scenario.Default()
	s.Params = params("Concurrency", "1", "TotalPayments", "5")
	s.Job = scenario.Job{LaunchCount: 1, WarmupCount: 1, IterationCount: 3, InvocationCount: 1}
	for _, text := range []string{"pause payee at iteration 1 for 20ms", "restart bob after 3 payments", "loss alice~bob 5% at 0s for 10ms", "kill alice at iteration 2", "pause bob after 99 payments for 1s"} {
		f, err := faults.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		s.Faults = append(s.Faults, f)
	}
	opts := h.options(s, t)
	opts.StartChain = func(ctx context.Context, be backend.Backend) (network.Chain, backend.ChainEndpoint, error) {
		return fakenet.StartChain(ctx, be.(*faultyFake).Backend)
	}
	opts.NewBackend = func(n NetworkSpec) (backend.Backend, error) {
		fake = &faultyFake{Backend: h.fleet.NewBackend(n.RunID), eps: map[string]backend.NodeEndpoint{}}
		return fake, nil
	}
	run, recs, err := execute(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 20 {
		t.Errorf("%d payments, want 20: the run goes on after the faults", len(recs))
	}
	got := map[string]faults.Record{}
	for _, r := range readFaults(t, run) {
		got[r.Spec] = r
	}
	if len(got) != 5 {
		t.Fatalf("records %+v", got)
	}
	check := func(spec string, iteration int, ended, active bool, errText string) {
		t.Helper()
		r, ok := got[spec]
		switch {
		case !ok:
			t.Errorf("no record of %q", spec)
		case r.Iteration != iteration || r.End.IsZero() == ended || r.ChannelsActive.IsZero() == active || !strings.Contains(r.Error, errText) || (errText == "") != (r.Error == ""):
			t.Errorf("record %+v: want iteration %d, ended %v, channels active %v, error %q", r, iteration, ended, active, errText)
		case r.Case != "Concurrency=1/TotalPayments=5" || r.Network == "":
			t.Errorf("record %+v names no case or network", r)
		case errText == "" && (r.Start.IsZero() || (ended && r.End.Before(r.Start))):
			t.Errorf("record %+v: start/end out of order", r)
		}
	}
	check("pause payee at iteration 1 for 20ms", 1, true, false, "")
	check("restart bob after 3 payments", 0, true, true, "")
	check("loss alice~bob 5% at 0s for 10ms", 0, true, false, "")
	check("kill alice at iteration 2", 2, false, false, "")
	// An impairment's record keeps what the backend said: when its rules
	// were in (after the trigger fired), how, which packets, what was spared.
	if r := got["loss alice~bob 5% at 0s for 10ms"]; r.Scheduled.IsZero() || !r.Start.After(r.Scheduled) || r.Mechanism != "bpf" || r.Direction != "both" ||
		!slices.Equal(r.Exempt, []string{"harness 10.0.0.1"}) {
		t.Errorf("impairment record %+v", r)
	}
	check("pause bob after 99 payments for 1s", -1, false, false, "not injected")
	if got["pause payee at iteration 1 for 20ms"].Target != "bob" {
		t.Errorf("role not resolved: %+v", got["pause payee at iteration 1 for 20ms"])
	}
	calls := strings.Join(fake.calls, ",")
	for _, c := range []string{"pause bob", "resume bob", "restart bob", "impair alice~bob", "clear alice~bob", "kill alice"} {
		if !strings.Contains(calls, c) {
			t.Errorf("backend calls %s: no %q", calls, c)
		}
	}
	if !strings.Contains(strings.Join(fake.Events(), ","), "dial bob,ready bob") {
		t.Errorf("restarted bob not dialled again and waited for: %v", fake.Events())
	}
	copy, _ := os.ReadFile(filepath.Join(run.Dir, "scenario.yml"))
	if !strings.Contains(string(copy), `- "restart bob after 3 payments"`) {
		t.Errorf("the artifacts' scenario does not repeat the faults:\n%s", copy)
	}
}

// diagnoser reports the given deaths.
type diagnoser struct {
	fakenet.Backend
	mu   sync.Mutex
	dead []backend.Death
}

func (d *diagnoser) Dead(ctx context.Context) []backend.Death {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]backend.Death(nil), d.dead...)
}

func (d *diagnoser) set(dead ...backend.Death) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dead = dead
}

// TestWatchdogIgnoresInjectedFaults: an actor down by a fault is no
// reason to stop; any other death still is.
func TestWatchdogIgnoresInjectedFaults(t *testing.T) {
	d := &diagnoser{}
	ticks := make(chan time.Time)
	exp := newExpected()
	w := watchNetwork(context.Background(), "launch1", d, ticks, nil)
	w.expectFaults(exp)
	defer w.stop()
	ctx := w.ctx
	// tick returns once the watchdog took the tick: the check before it is done.
	tick := func() {
		t.Helper()
		select {
		case ticks <- time.Now():
		case <-ctx.Done():
			t.Fatalf("watchdog stopped the run for injected faults: %v", context.Cause(ctx))
		}
	}
	bob := backend.Death{Actor: "bob", ExitCode: -1, Signal: "SIGKILL", LogTail: []string{"x"}}
	carolPaused := backend.Death{Actor: "carol", Reason: "paused", ExitCode: -1, LogTail: []string{"y"}}
	carolExited := backend.Death{Actor: "carol", Reason: "exited", ExitCode: 2, LogTail: []string{"y"}}
	exp.begin("bob")   // a kill: for good
	exp.begin("carol") // a pause, ended below
	d.set(bob, carolPaused)
	tick()
	tick()
	d.set(bob)
	exp.end("carol")
	tick()
	tick()
	// Asked after carol's pause ended, a report of her is a real death.
	d.set(bob, carolExited)
	select {
	case ticks <- time.Now():
		<-ctx.Done()
	case <-ctx.Done():
	}
	var de *backend.DeadError
	if !errors.As(context.Cause(ctx), &de) || !slices.Equal(de.Actors(), []string{"carol"}) {
		t.Fatalf("cause %v: want carol's death only", context.Cause(ctx))
	}
	if got := context.Cause(ctx).Error(); !strings.HasPrefix(got, "network launch1: carol died: exited with code 2; last log lines:\n  y") {
		t.Errorf("cause %q", got)
	}
}
