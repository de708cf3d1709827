//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/scenario"
)

// faultScenario is AlicePaysBob in open loop (payments keep starting on
// schedule through the fault), one measured iteration, with the faults.
func faultScenario(t *testing.T, name string, rate, total int, specs ...string) scenario.Scenario {
	t.Helper()
	s := scenario.Default()
	s.Name = name
	s.Params = []scenario.Param{{Name: "Rate", Values: []string{strconv.Itoa(rate)}}, {Name: "TotalPayments", Values: []string{strconv.Itoa(total)}}}
	s.Job = scenario.Job{LaunchCount: 1, WarmupCount: 0, IterationCount: 1, InvocationCount: 1}
	for _, text := range specs {
		f, err := faults.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		s.Faults = append(s.Faults, f)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckTopologies(); err != nil {
		t.Fatal(err)
	}
	return s
}

func faultRecords(t *testing.T, dir string) []faults.Record {
	t.Helper()
	out, err := faults.Load(filepath.Join(dir, faults.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRestartBobMidRun restarts bob's lnd 3 s into measurement on the
// local backend: the run completes with every payment's outcome, the
// restart is recorded with when bob answered again and when his channel
// was active again, and the report is written.
func TestRestartBobMidRun(t *testing.T) {
	s := faultScenario(t, "RestartBob", 20, 400, "restart bob at 3s")
	rep, dir := runLocal(t, s)
	recs := faultRecords(t, dir)
	if len(recs) != 1 {
		t.Fatalf("faults.jsonl: %+v", recs)
	}
	r := recs[0]
	t.Logf("restart: start %s, answering after %v, channels active after %v", r.Start.Format(time.TimeOnly), r.End.Sub(r.Start), r.ChannelsActive.Sub(r.Start))
	if r.Error != "" || r.Kind != faults.Restart || r.Target != "bob" || r.Iteration != 0 || r.Start.IsZero() || !r.End.After(r.Start) || r.ChannelsActive.Before(r.End) {
		t.Fatalf("restart record %+v", r)
	}
	pays, err := result.ReadFile(filepath.Join(dir, "payments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pays) != 400 {
		t.Errorf("%d payment records, want 400: every payment has an outcome", len(pays))
	}
	during, ok, failedDuring := 0, 0, 0
	for _, p := range pays {
		if p.Status == "" {
			t.Errorf("payment without outcome: %+v", p)
		}
		if p.Status == result.Succeeded {
			ok++
		}
		if p.Start.After(r.Start) && p.Start.Before(r.ChannelsActive) {
			during++
			if p.Status != result.Succeeded {
				failedDuring++
			}
		}
	}
	t.Logf("%d payments succeeded; %d started during the restart, %d of them not succeeded", ok, during, failedDuring)
	if during == 0 || failedDuring == 0 {
		t.Errorf("no payment hit the restart (%d during, %d failed)", during, failedDuring)
	}
	// After the restart, payments succeed again.
	last := pays[len(pays)-1]
	for _, p := range pays {
		if p.End.After(last.End) {
			last = p
		}
	}
	if last.Status != result.Succeeded || !last.Start.After(r.ChannelsActive) {
		t.Errorf("last payment %+v: want a success after recovery", last)
	}
	if len(rep.Cases) != 1 {
		t.Errorf("report cases %d", len(rep.Cases))
	}
	for _, f := range []string{"summary.md", "scenario.yml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if copy, _ := os.ReadFile(filepath.Join(dir, "scenario.yml")); !strings.Contains(string(copy), "restart bob at 3s") {
		t.Errorf("scenario copy lacks the fault:\n%s", copy)
	}
}

// TestPauseBobFiveSeconds freezes bob for 5 s: the run completes and the
// payments started while he was frozen took about as long as the rest of
// the pause (a stall), the others stayed fast.
func TestPauseBobFiveSeconds(t *testing.T) {
	s := faultScenario(t, "PauseBob", 20, 240, "pause bob at 3s for 5s")
	_, dir := runLocal(t, s)
	recs := faultRecords(t, dir)
	if len(recs) != 1 || recs[0].Error != "" || recs[0].End.IsZero() {
		t.Fatalf("faults.jsonl: %+v", recs)
	}
	pays, err := result.ReadFile(filepath.Join(dir, "payments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	checkPauseStalls(t, pays, recs[0])
}

// checkPauseStalls: a 5 s pause held payments started early in it for
// about the rest of the pause, at least 3 s longer than those before it
// took, and every payment has an outcome. The check is against the
// machine's own latency before the pause: a busy CI machine's CLN took
// 1.1 s a payment at 20/s (125 ms on a quiet one) and still stalled 8 s.
func checkPauseStalls(t *testing.T, pays []result.Record, r faults.Record) {
	t.Helper()
	if held := r.End.Sub(r.Start); held < 5*time.Second || held > 6*time.Second {
		t.Errorf("paused for %v, want 5 s", held)
	}
	var stalled, before time.Duration
	nBefore := 0
	for _, p := range pays {
		switch {
		case p.Start.After(r.Start.Add(500*time.Millisecond)) && p.Start.Before(r.Start.Add(1500*time.Millisecond)):
			stalled = max(stalled, p.Latency())
		case p.End.Before(r.Start):
			before += p.Latency()
			nBefore++
		}
	}
	if nBefore == 0 {
		t.Fatal("no payment ended before the pause")
	}
	mean := before / time.Duration(nBefore)
	t.Logf("mean latency before the pause %v; payments started 0.5–1.5 s into it took up to %v", mean, stalled)
	if stalled-mean < 3*time.Second {
		t.Errorf("no stall visible: before %v, during %v", mean, stalled)
	}
	for _, p := range pays {
		if p.Status == "" {
			t.Errorf("payment without outcome: %+v", p)
		}
	}
}
