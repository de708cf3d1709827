//go:build e2e

package e2e

// Faults on a node measured against the kernel (issue 22): AlicePaysBob on
// compose with 20% loss or a 100 ms delay on bob, while the test reads
// alice's and bob's TCP counters from the host (/proc/<pid>/net/snmp of
// each container's init process), a reading lnbench does not make.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/recovery"
)

// tcpWatch samples the retransmitted-segment counters of a run's actors
// every 200 ms from the moment their containers exist.
type tcpWatch struct {
	poller
	mu       sync.Mutex
	readings []tcpReading
}

// poller is a test's reading loop in the background: tick paces it, end
// stops it and waits until it has returned.
type poller struct {
	stop, done chan struct{}
}

func newPoller() poller { return poller{stop: make(chan struct{}), done: make(chan struct{})} }

// tick waits d; false when the poller was ended meanwhile.
func (p *poller) tick(d time.Duration) bool {
	select {
	case <-p.stop:
		return false
	case <-time.After(d):
		return true
	}
}

func (p *poller) end() {
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	<-p.done
}

type tcpReading struct {
	at     time.Time
	counts map[string]tcpCounts
}

// tcpCounts are one container's Tcp counters from /proc/PID/net/snmp.
type tcpCounts struct{ retrans, out int }

func watchTCP(t *testing.T, r *composeRun, actors ...string) *tcpWatch {
	w := &tcpWatch{poller: newPoller()}
	go func() {
		defer close(w.done)
		pids := map[string]string{}
		for len(pids) < len(actors) {
			if !w.tick(500 * time.Millisecond) {
				return
			}
			id := r.runID()
			for _, a := range actors {
				if id == "" || pids[a] != "" {
					continue
				}
				cid := measuredContainer(id, a)
				if cid == "" {
					continue
				}
				if out, err := composeDockerList("inspect", "--format", "{{.State.Pid}}", cid); err == nil && len(out) == 1 && out[0] != "0" {
					pids[a] = out[0]
				}
			}
		}
		for {
			rd := tcpReading{at: time.Now(), counts: map[string]tcpCounts{}}
			for a, pid := range pids {
				if data, err := os.ReadFile("/proc/" + pid + "/net/snmp"); err == nil {
					rd.counts[a] = snmpTCP(string(data))
				}
			}
			w.mu.Lock()
			w.readings = append(w.readings, rd)
			w.mu.Unlock()
			if !w.tick(200 * time.Millisecond) {
				return
			}
		}
	}()
	t.Cleanup(w.end)
	return w
}

// measuredContainer is the running container of actor in the run's
// measured network ("" until there is exactly one): a network built to be
// saved as a snapshot (named "<network>-snapshot") comes first and goes.
func measuredContainer(runID, actor string) string {
	out, err := composeDockerList("ps", "--filter", "label="+composeRunLabel+"="+runID, "--filter", "label=com.docker.compose.service="+actor,
		"--format", `{{.ID}}/{{.Label "`+composefile.NetworkLabel+`"}}`)
	if err != nil {
		return ""
	}
	var ids []string
	for _, line := range out {
		id, network, _ := strings.Cut(line, "/")
		if !strings.HasSuffix(network, "-snapshot") {
			ids = append(ids, id)
		}
	}
	if len(ids) != 1 {
		return ""
	}
	return ids[0]
}

// retrans is how many segments actor retransmitted between from and to
// (the readings nearest before each); false without readings spanning it.
func (w *tcpWatch) retrans(actor string, from, to time.Time) (int, bool) {
	c, ok := w.delta(actor, from, to)
	return c.retrans, ok
}

// delta is actor's counters between from and to (the readings nearest
// before each); false without readings spanning it.
func (w *tcpWatch) delta(actor string, from, to time.Time) (tcpCounts, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	at := func(t time.Time) (tcpCounts, bool) {
		i := slices.IndexFunc(w.readings, func(r tcpReading) bool { return r.at.After(t) })
		if i <= 0 {
			return tcpCounts{}, false
		}
		v, ok := w.readings[i-1].counts[actor]
		return v, ok
	}
	a, ok1 := at(from)
	b, ok2 := at(to)
	d := tcpCounts{retrans: b.retrans - a.retrans, out: b.out - a.out}
	return d, ok1 && ok2 && w.readings[len(w.readings)-1].at.After(to)
}

// share is the part of the segments sent that were retransmissions.
func (c tcpCounts) share() float64 { return float64(c.retrans) / float64(max(c.out, 1)) }

// snmpTCP is /proc/net/snmp's Tcp RetransSegs and OutSegs (-1 when absent).
func snmpTCP(snmp string) tcpCounts {
	lines := strings.Split(snmp, "\n")
	for i := 0; i+1 < len(lines); i++ {
		head, vals := strings.Fields(lines[i]), strings.Fields(lines[i+1])
		if len(head) > 0 && head[0] == "Tcp:" && len(vals) == len(head) {
			field := func(name string) int {
				if k := slices.Index(head, name); k > 0 {
					if n, err := strconv.Atoi(vals[k]); err == nil {
						return n
					}
				}
				return -1
			}
			return tcpCounts{retrans: field("RetransSegs"), out: field("OutSegs")}
		}
	}
	return tcpCounts{retrans: -1, out: -1}
}

// nodeFaultRun runs AlicePaysBob on compose (LND) with one fault, watching
// the kernel's TCP counters, and returns the payments, the fault's record
// and its recovery figures from summary.json.
func nodeFaultRun(t *testing.T, name, params, fault string) ([]result.Record, faults.Record, recovery.Fault, *tcpWatch) {
	t.Helper()
	return nodeFaultRunOn(t, faultNodes{}, name, params, fault)
}

// faultNodes is what a node-fault run runs on: the scenario's nodes block
// ("" for LND's default) and further flags for lnbench run.
type faultNodes struct {
	nodes string
	extra []string
}

func nodeFaultRunOn(t *testing.T, on faultNodes, name, params, fault string) ([]result.Record, faults.Record, recovery.Fault, *tcpWatch) {
	t.Helper()
	r := startNodeFaultRun(t, on, name, params, fault)
	w := watchTCP(t, r, "alice", "bob")
	recs, f, rf := finishNodeFaultRun(t, r)
	w.end()
	if len(f.Exempt) == 0 || !strings.HasPrefix(f.Exempt[0], "harness ") || f.Direction == "" || f.End.IsZero() {
		t.Errorf("record says nothing of the traffic impaired: %+v", f)
	}
	return recs, f, rf, w
}

// startNodeFaultRun starts AlicePaysBob on compose with one fault.
func startNodeFaultRun(t *testing.T, on faultNodes, name, params, fault string) *composeRun {
	t.Helper()
	bin := composeSetup(t)
	nodes := ""
	if on.nodes != "" {
		nodes = "nodes: " + on.nodes + "\n"
	}
	scen := composeScenarioFile(t, fmt.Sprintf(`name: %s
topology: AlicePaysBob
%sparams: {%s}
job: {WarmupCount: 0, IterationCount: 1}
`, composeUniqueName(name), nodes, params))
	return startCompose(t, bin, scen, append([]string{"--fault", fault}, on.extra...)...)
}

// finishNodeFaultRun waits for a one-fault run and returns its payments,
// the fault's record and its recovery figures from summary.json.
func finishNodeFaultRun(t *testing.T, r *composeRun) ([]result.Record, faults.Record, recovery.Fault) {
	t.Helper()
	r.finish(8 * time.Minute)
	time.Sleep(time.Second) // watchers' readings past the last payment
	dir, recs, fs := faultRunOutput(t, r)
	if len(fs) != 1 || fs[0].Start.IsZero() {
		t.Fatalf("faults.jsonl: %+v", fs)
	}
	var sum struct {
		Faults []recovery.Fault `json:"faults"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err == nil {
		err = json.Unmarshal(data, &sum)
	}
	if err != nil || len(sum.Faults) != 1 {
		t.Fatalf("summary.json faults: %v %+v", err, sum.Faults)
	}
	f := fs[0]
	t.Logf("record: %s by %s (%s), exempt %v; scheduled %s, start %s, end %s",
		f.Spec, f.Mechanism, f.Direction, f.Exempt, f.Scheduled.Format("15:04:05.000"), f.Start.Format("15:04:05.000"), f.End.Format("15:04:05.000"))
	if f.Error != "" {
		t.Errorf("fault error: %s", f.Error)
	}
	return recs, f, sum.Faults[0]
}

// successesPerSec is the successful payments/s that ended in [from, to),
// the window clipped to the span the payments ran (the first start to the
// last end), so that a window reaching past the load is not read as a
// slow one. A window under a second after clipping reads 0, ok false.
func successesPerSec(recs []result.Record, from, to time.Time) (float64, bool) {
	var first, last time.Time
	for _, r := range recs {
		if first.IsZero() || r.Start.Before(first) {
			first = r.Start
		}
		if r.End.After(last) {
			last = r.End
		}
	}
	if from.Before(first) {
		from = first
	}
	if to.After(last) {
		to = last
	}
	if to.Sub(from) < time.Second {
		return 0, false
	}
	n := 0
	for _, r := range recs {
		if r.Status == result.Succeeded && !r.End.Before(from) && r.End.Before(to) {
			n++
		}
	}
	return float64(n) / to.Sub(from).Seconds(), true
}

// 20% loss on bob is loss to TCP on both of bob's directions: alice
// retransmits what bob's ingress dropped, bob what its egress dropped, and
// throughput falls (an OUTPUT drop was resent at once: 583 drops, 1
// retransmit, 62 → 59.6 payments/s).
func TestComposeFaultLossOnBob(t *testing.T) {
	recs, f, _, w := nodeFaultRun(t, "CmpLossBob", "Concurrency: [8], TotalPayments: [1200]", "loss bob 20% at 10s for 10s")
	checkLossOnBob(t, recs, f, w)
}

// checkLossOnBob: 20% loss on bob cut the throughput and made both ends
// retransmit, by the kernel's counters.
func checkLossOnBob(t *testing.T, recs []result.Record, f faults.Record, w *tcpWatch) {
	t.Helper()
	if f.Mechanism != "bpf" || f.Direction != "both" {
		t.Errorf("mechanism %q direction %q, want bpf both", f.Mechanism, f.Direction)
	}
	span := f.End.Sub(f.Start)
	before, _ := successesPerSec(recs, f.Start.Add(-span), f.Start)
	during, _ := successesPerSec(recs, f.Start, f.End)
	after, afterOK := successesPerSec(recs, f.End, f.End.Add(span))
	aDur, ok1 := w.delta("alice", f.Start, f.End)
	bDur, ok2 := w.delta("bob", f.Start, f.End)
	aBef, _ := w.delta("alice", f.Start.Add(-span), f.Start)
	bBef, _ := w.delta("bob", f.Start.Add(-span), f.Start)
	t.Logf("payments/s %.1f in the %.1f s before, %.1f during 20%% loss on bob, %.1f after (window kept: %v)", before, span.Seconds(), during, after, afterOK)
	sides := []struct {
		actor       string
		bef, during tcpCounts
	}{{"alice", aBef, aDur}, {"bob", bBef, bDur}}
	for _, c := range sides {
		t.Logf("%s (kernel): %d of %d TCP segments sent were retransmissions before (%.2f%%), %d of %d during (%.2f%%)",
			c.actor, c.bef.retrans, c.bef.out, 100*c.bef.share(), c.during.retrans, c.during.out, 100*c.during.share())
	}
	if !ok1 || !ok2 {
		t.Fatalf("the TCP readings do not span the fault")
	}
	// A cut, not its size: each lost segment costs the payments waiting on
	// it a retransmission timeout, which weighs less on a machine whose
	// payments are slow already (quiet: CLN 44.5 → 11.3 payments/s; a busy
	// CI machine's CLN 11.8 → 9.4 with the same retransmission shares).
	// The rate without the fault is the better of the windows either side:
	// on CI the other tests' load moves under one of them (a CLN bob at
	// 5.8/s before, 7.3 during, with 11.6% of alice's segments resent).
	free := before
	if afterOK && after > free {
		free = after
	}
	if during > 0.9*free {
		t.Errorf("throughput %.1f/s during 20%% loss, %.1f/s before and %.1f after: want a cut", during, before, after)
	}
	// The count of retransmissions follows the traffic the loss leaves, so
	// the check is on their share of the segments sent: a 20% loss both
	// ways puts it at several percent on each side, against well under 1%
	// before.
	for _, c := range sides {
		if c.during.retrans < 5 || c.during.share() < 0.02 || c.during.share() < 5*c.bef.share() {
			t.Errorf("%s retransmitted %d of %d segments during the loss (%.2f%%), %.2f%% before: want at least 2%% and five times before",
				c.actor, c.during.retrans, c.during.out, 100*c.during.share(), 100*c.bef.share())
		}
	}
}

// A 100 ms delay on bob adds the Lightning round trips of the alice–bob
// hop to each payment (three measured: the commitment exchange of the add
// and of the fulfil), none to the harness's own AddInvoice to bob (exempt:
// its time is recorded apart, invoice_ns); payments that take what the
// fault predicts are not stalled; clearing the delay loses no held packet.
func TestComposeFaultDelayOnBob(t *testing.T) {
	recs, f, rf, w := nodeFaultRun(t, "CmpDelayBob", "Concurrency: [1], TotalPayments: [260]", "delay bob 100ms at 8s for 8s")
	checkDelayOnBob(t, recs, f, rf, w)
}

// checkDelayOnBob: 100 ms on bob shifted the Lightning payment by two to
// three round trips and the exempt invoice call not at all; at most a
// tenth of the payments during it stalled against the prediction.
func checkDelayOnBob(t *testing.T, recs []result.Record, f faults.Record, rf recovery.Fault, w *tcpWatch) {
	t.Helper()
	before, during, nb, nd := around(recs, f)
	part := func(ns func(result.Record) int64) (b, d time.Duration) {
		var bs, ds []time.Duration
		for _, r := range recs {
			switch {
			case r.Status != result.Succeeded:
			case r.End.Before(f.Start):
				bs = append(bs, time.Duration(ns(r)))
			case !r.Start.Before(f.Start) && r.End.Before(f.End):
				ds = append(ds, time.Duration(ns(r)))
			}
		}
		return median(bs), median(ds)
	}
	invB, invD := part(func(r result.Record) int64 { return r.InvoiceNs })
	payB, payD := part(func(r result.Record) int64 { return r.PaymentNs })
	t.Logf("p50 %v (%d payments) before, %v (%d) during 100 ms on bob: shift %v", before, nb, during, nd, during-before)
	t.Logf("of which AddInvoice (harness→bob) %v → %v, the payment (Lightning) %v → %v", invB, invD, payB, payD)
	stalled, pred := -1, -1.0
	if rf.Stalled != nil {
		stalled = *rf.Stalled
	}
	if rf.PredictedAddedMs != nil {
		pred = *rf.PredictedAddedMs
	}
	t.Logf("summary.json: stalled %d, predicted added %.0f ms", stalled, pred)
	if nb < 20 || nd < 10 {
		t.Fatalf("too few payments around the fault: %d before, %d during", nb, nd)
	}
	if invD > invB+30*time.Millisecond {
		t.Errorf("AddInvoice shifted by %v: the harness's call should be exempt", invD-invB)
	}
	// Quiet, the shift is three round trips (LND and CLN +311 ms, +316 ms
	// alone); on CI's loaded machine CLN measured +530 ms, its payment
	// 107 ms before instead of 48 (why more round trips then wait on the
	// delay is not measured yet; messages a quiet run batches, sent
	// apart, would do it). The upper bound catches a delay held for good.
	if shift := payD - payB; shift < 180*time.Millisecond || shift > 650*time.Millisecond {
		t.Errorf("payment shift %v, want two to three round trips of 100 ms (up to six on a loaded machine)", shift)
	}
	// This host runs a benchmark beside the tests: one slow payment is noise.
	if pred != 300 || stalled < 0 || stalled*10 > nd {
		t.Errorf("stalled %d of %d against a prediction of %.0f ms added: want at most a tenth against 300", stalled, nd, pred)
	}
	span := f.End.Sub(f.Start) + 3*time.Second
	for _, a := range []string{"alice", "bob"} {
		n, ok := w.retrans(a, f.Start.Add(-time.Second), f.End.Add(2*time.Second))
		base, _ := w.retrans(a, f.Start.Add(-time.Second-span), f.Start.Add(-time.Second))
		t.Logf("%s retransmitted %d TCP segments from 1 s before the delay to 2 s after it was cleared, %d in as long before (kernel; readings span it: %v)", a, n, base, ok)
	}
}
