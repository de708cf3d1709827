package load

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/record/result"
)

// fakeNode is a pure in-memory node for testing the load logic only; real
// behaviour is tested against LND in e2e. Its payments take exactly delay:
// the tests run in a synctest bubble, whose clock moves only when every
// goroutine in it waits, so durations and schedules are asserted exactly.
type fakeNode struct {
	node.Node
	name     string
	delay    time.Duration
	inFlight atomic.Int32
	peak     atomic.Int32
	fail     func(seq int64) bool
	calls    atomic.Int64
	// invoiceDelay is how long AddInvoice takes; invoices counts the calls.
	invoiceDelay time.Duration
	invoices     atomic.Int64
}

func (f *fakeNode) Name() string { return f.name }
func (f *fakeNode) AddInvoice(ctx context.Context, amt int64, memo string) (node.Invoice, error) {
	f.invoices.Add(1)
	time.Sleep(f.invoiceDelay)
	return node.Invoice{PaymentRequest: "lnsb1fake"}, nil
}
func (f *fakeNode) Pay(ctx context.Context, p node.Payment) (node.PaymentResult, error) {
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		old := f.peak.Load()
		if n <= old || f.peak.CompareAndSwap(old, n) {
			break
		}
	}
	c := f.calls.Add(1)
	select {
	case <-time.After(f.delay):
	case <-ctx.Done():
		return node.PaymentResult{}, ctx.Err()
	}
	if f.fail != nil && f.fail(c) {
		return node.PaymentResult{FailureReason: "FAILURE_REASON_NO_ROUTE"}, nil
	}
	if p.PaymentRequest == "" && p.KeysendDest == "" {
		return node.PaymentResult{}, errors.New("nothing to pay")
	}
	return node.PaymentResult{Succeeded: true, Hops: 1, Parts: 2, Attempts: 3}, nil
}

type collect struct {
	mu   sync.Mutex
	recs []result.Record
}

func (c *collect) sink(r result.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recs = append(c.recs, r)
	return nil
}

func TestClosedLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		payer := &fakeNode{name: "alice", delay: 5 * time.Millisecond, fail: func(c int64) bool { return c%10 == 0 }}
		payee := &fakeNode{name: "bob"}
		var c collect
		res, err := RunBatch(context.Background(), Target{Payers: []node.Node{payer}, Payee: payee, Mode: ModeInvoice, AmountSat: 100},
			Batch{Case: "c", Phase: result.Measure, Concurrency: 4, Total: 50}, nil, c.sink)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.recs) != 50 || res.Succeeded != 45 || res.Failed != 5 {
			t.Fatalf("records %d, ok %d, failed %d", len(c.recs), res.Succeeded, res.Failed)
		}
		// 4 workers, each starting its next payment when the last ends:
		// exactly 4 in flight, and 50 payments take ⌈50/4⌉ rounds of 5 ms.
		if p := payer.peak.Load(); p != 4 {
			t.Fatalf("peak concurrency %d, want 4", p)
		}
		if d := res.Duration(); d != 13*5*time.Millisecond {
			t.Fatalf("batch took %v, want 13 rounds of 5ms", d)
		}
		seqs := map[int]bool{}
		for _, r := range c.recs {
			seqs[r.Seq] = true
			if r.Worker < 0 || r.Worker >= 4 || r.Case != "c" || r.Latency() != 5*time.Millisecond {
				t.Fatalf("bad record %+v", r)
			}
			if r.Status == result.Succeeded && (r.Hops != 1 || r.Parts != 2 || r.Attempts != 3) {
				t.Fatalf("route figures not recorded: %+v", r)
			}
		}
		if len(seqs) != 50 {
			t.Fatalf("%d distinct seqs", len(seqs))
		}
	})
}

func TestCreateInvoiceModeTimesTheInvoiceAndPaysNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		payer := &fakeNode{name: "alice", delay: time.Second}
		payee := &fakeNode{name: "bob", invoiceDelay: 3 * time.Millisecond}
		var c collect
		res, err := RunBatch(context.Background(), Target{Payers: []node.Node{payer}, Payee: payee, Mode: ModeCreateInvoice, AmountSat: 1},
			Batch{Case: "c", Phase: result.Measure, Concurrency: 2, Total: 10}, nil, c.sink)
		if err != nil {
			t.Fatal(err)
		}
		if res.Succeeded != 10 || payee.invoices.Load() != 10 || payer.calls.Load() != 0 {
			t.Fatalf("ok %d, invoices %d, payments %d: want 10 invoices and no payment", res.Succeeded, payee.invoices.Load(), payer.calls.Load())
		}
		if d := res.Duration(); d != 5*3*time.Millisecond {
			t.Fatalf("batch took %v, want 5 rounds of 3ms", d)
		}
		for _, r := range c.recs {
			if r.Latency() != 3*time.Millisecond || r.InvoiceNs != int64(3*time.Millisecond) || r.PaymentNs != 0 || r.Payee != "bob" {
				t.Fatalf("bad record %+v", r)
			}
		}
	})
}

func TestClosedLoopCancelRecordsInFlightAsAborted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Two workers with 20 ms payments finish 2 each at 20, 40 and 60 ms;
		// the deadline at 70 ms interrupts the pair started at 60 ms: they
		// are recorded as aborted, not dropped, and not counted as failed.
		payer := &fakeNode{name: "alice", delay: 20 * time.Millisecond}
		var c collect
		ctx, cancel := context.WithTimeout(context.Background(), 70*time.Millisecond)
		defer cancel()
		res, err := RunBatch(ctx, Target{Payers: []node.Node{payer}, Payee: &fakeNode{name: "bob"}, Mode: ModeInvoice},
			Batch{Concurrency: 2, Total: 1000}, nil, c.sink)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v", err)
		}
		if len(c.recs) != 8 || res.Succeeded != 6 || res.Failed != 0 || res.Aborted != 2 {
			t.Fatalf("%d records (ok %d, failed %d, aborted %d) after cancel, want 6 finished + 2 aborted", len(c.recs), res.Succeeded, res.Failed, res.Aborted)
		}
		aborted := 0
		for _, r := range c.recs {
			if r.Status == result.Aborted {
				aborted++
				if r.End.Sub(r.Start) != 10*time.Millisecond || !strings.Contains(r.FailureReason, "stopped by the harness") {
					t.Errorf("aborted record %+v", r)
				}
			}
		}
		if aborted != 2 {
			t.Errorf("%d aborted records", aborted)
		}
		if d := res.Duration(); d != 70*time.Millisecond {
			t.Fatalf("batch returned after %v, want at the 70ms deadline", d)
		}
	})
}

func TestPaymentOutcomes(t *testing.T) {
	// A gRPC status error keeps its code; the payment's own bound passing
	// is a timeout, the harness's context ending an abort.
	grpcErr := fmt.Errorf("alice: SendPaymentV2: %w", status.Error(codes.Unavailable, "connection refused"))
	live := context.Background()
	ended, cancel := context.WithCancel(live)
	cancel()
	expired, cancel2 := context.WithTimeout(live, -time.Second)
	defer cancel2()
	for _, tc := range []struct {
		name        string
		ctx, bound  context.Context
		err         error
		status, rpc string
	}{
		{"grpc", live, live, grpcErr, result.Error, "Unavailable"},
		{"plain", live, live, errors.New("boom"), result.Error, ""},
		{"bound", live, expired, fmt.Errorf("x: %w", status.Error(codes.DeadlineExceeded, "deadline")), result.TimedOut, "DeadlineExceeded"},
		{"abort", ended, ended, fmt.Errorf("x: %w", status.Error(codes.Canceled, "canceled")), result.Aborted, "Canceled"},
	} {
		var rec result.Record
		setError(&rec, tc.ctx, tc.bound, "", tc.err)
		if rec.Status != tc.status || rec.GRPCCode != tc.rpc {
			t.Errorf("%s: status %q code %q, want %q %q", tc.name, rec.Status, rec.GRPCCode, tc.status, tc.rpc)
		}
	}
}

func TestOpenLoopSchedulesIndependentlyOfCompletion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// 200/s for 40 payments that each take 100 ms: a closed loop with one
		// worker would need 4 s; open loop starts the last at 195 ms.
		payer := &fakeNode{name: "alice", delay: 100 * time.Millisecond}
		var c collect
		pacer := ConstantRate{200}
		res, err := RunOpen(context.Background(), Target{Payers: []node.Node{payer}, Payee: &fakeNode{name: "bob"}, Mode: ModeKeysend, PayeePubKey: "02ab"},
			OpenBatch{Batch: Batch{Total: 40}, Pacer: pacer}, nil, c.sink)
		if err != nil {
			t.Fatal(err)
		}
		if d := res.Duration(); d != 295*time.Millisecond {
			t.Fatalf("open loop took %v, want 195ms of schedule + 100ms", d)
		}
		if res.Succeeded != 40 || len(c.recs) != 40 || payer.peak.Load() < 20 {
			t.Fatalf("ok %d, records %d, peak in flight %d (want ≥ 20)", res.Succeeded, len(c.recs), payer.peak.Load())
		}
		for _, r := range c.recs {
			if want := res.Start.Add(pacer.Offset(r.Seq)); !r.Start.Equal(want) {
				t.Fatalf("seq %d start %v, want scheduled %v", r.Seq, r.Start, want)
			}
			if r.Latency() != 100*time.Millisecond || r.QueueNs != 0 || r.Worker != -1 {
				t.Fatalf("seq %d: latency %v, queued %v, worker %d; want 100ms, 0, -1", r.Seq, r.Latency(), time.Duration(r.QueueNs), r.Worker)
			}
		}
	})
}

func TestOpenLoopQueueingCountsInLatency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// MaxInFlight 1 with 50 ms payments due every 10 ms: payment i waits
		// for the i before it, starting at i·50 ms instead of i·10 ms, and
		// that wait shows in latency measured from the schedule.
		payer := &fakeNode{name: "alice", delay: 50 * time.Millisecond}
		var c collect
		_, err := RunOpen(context.Background(), Target{Payers: []node.Node{payer}, Payee: &fakeNode{name: "bob"}, Mode: ModeKeysend, PayeePubKey: "02ab"},
			OpenBatch{Batch: Batch{Total: 6}, Pacer: ConstantRate{100}, MaxInFlight: 1}, nil, c.sink)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.recs) != 6 || payer.peak.Load() != 1 {
			t.Fatalf("%d records, peak in flight %d; want 6 and 1", len(c.recs), payer.peak.Load())
		}
		for _, r := range c.recs {
			queued := time.Duration(r.Seq) * 40 * time.Millisecond
			if time.Duration(r.QueueNs) != queued || r.Latency() != queued+50*time.Millisecond {
				t.Fatalf("seq %d: latency %v, queued %v; want %v and %v", r.Seq, r.Latency(), time.Duration(r.QueueNs), queued+50*time.Millisecond, queued)
			}
		}
	})
}

func TestPairsSpreadPaymentsBySeqInBothLoops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b, c := &fakeNode{name: "a", delay: time.Millisecond}, &fakeNode{name: "b", delay: time.Millisecond}, &fakeNode{name: "c", delay: time.Millisecond}
		target := Target{Pairs: []Pair{{Payer: a, Payee: c}, {Payer: b, Payee: a}, {Payer: c, Payee: b, PayeePubKey: "02bb"}}, Mode: ModeKeysend, AmountSat: 100}
		var closed, open collect
		if _, err := RunBatch(context.Background(), target, Batch{Concurrency: 2, Total: 9}, nil, closed.sink); err != nil {
			t.Fatal(err)
		}
		if _, err := RunOpen(context.Background(), target, OpenBatch{Batch: Batch{Total: 9}, Pacer: ConstantRate{PerSecond: 100}}, nil, open.sink); err != nil {
			t.Fatal(err)
		}
		want := []string{"a→c", "b→a", "c→b"}
		for _, recs := range [][]result.Record{closed.recs, open.recs} {
			if len(recs) != 9 {
				t.Fatalf("%d records, want 9", len(recs))
			}
			for _, r := range recs {
				if got := r.Payer + "→" + r.Payee; got != want[r.Seq%3] {
					t.Errorf("seq %d paid %s, want %s", r.Seq, got, want[r.Seq%3])
				}
			}
		}
		if _, err := RunBatch(context.Background(), Target{}, Batch{Concurrency: 1, Total: 1}, nil, closed.sink); err == nil {
			t.Error("a target without payers or pairs ran")
		}
	})
}

// routeLogPayer learns a payment's hops only after it returned, as a CLN
// payer reads its route log, and takes its time doing so.
type routeLogPayer struct {
	node.Node
	asked atomic.Int64
}

func (p *routeLogPayer) Name() string { return "alice" }
func (p *routeLogPayer) Pay(ctx context.Context, pay node.Payment) (node.PaymentResult, error) {
	time.Sleep(10 * time.Millisecond)
	return node.PaymentResult{Succeeded: true, Parts: 1, PaymentHash: "ab"}, nil
}
func (p *routeLogPayer) PaymentHops(hash string) (int, bool) {
	p.asked.Add(1)
	time.Sleep(50 * time.Millisecond)
	return 3, hash == "ab"
}

func TestHopsReadAfterThePaymentIsTimed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		payer := &routeLogPayer{}
		var c collect
		if _, err := RunBatch(context.Background(), Target{Payers: []node.Node{payer}, Payee: &fakeNode{name: "bob"}, Mode: ModeInvoice},
			Batch{Concurrency: 1, Total: 2}, nil, c.sink); err != nil {
			t.Fatal(err)
		}
		for _, r := range c.recs {
			if r.Hops != 3 || r.Latency() != 10*time.Millisecond {
				t.Fatalf("record %+v: want 3 hops read from the log and the payment's 10ms, not the reading's", r)
			}
		}
		if payer.asked.Load() != 2 {
			t.Fatalf("asked %d times", payer.asked.Load())
		}
	})
}
