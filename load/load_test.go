package load

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/result"
)

// fakeNode is a pure in-memory node for testing the load logic only; real
// behaviour is tested against LND in e2e.
type fakeNode struct {
	node.Node
	name     string
	delay    time.Duration
	inFlight atomic.Int32
	peak     atomic.Int32
	fail     func(seq int64) bool
	calls    atomic.Int64
}

func (f *fakeNode) Name() string { return f.name }
func (f *fakeNode) AddInvoice(ctx context.Context, amt int64, memo string) (node.Invoice, error) {
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
	return node.PaymentResult{Succeeded: true, Hops: 1}, nil
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
	if p := payer.peak.Load(); p > 4 || p < 2 {
		t.Fatalf("peak concurrency %d, want ≤ 4 (and > 1)", p)
	}
	seqs := map[int]bool{}
	for _, r := range c.recs {
		seqs[r.Seq] = true
		if r.Worker < 0 || r.Worker >= 4 || r.Case != "c" {
			t.Fatalf("bad record %+v", r)
		}
	}
	if len(seqs) != 50 {
		t.Fatalf("%d distinct seqs", len(seqs))
	}
}

func TestClosedLoopCancelKeepsOnlyFinished(t *testing.T) {
	payer := &fakeNode{name: "alice", delay: 20 * time.Millisecond}
	var c collect
	ctx, cancel := context.WithTimeout(context.Background(), 70*time.Millisecond)
	defer cancel()
	_, err := RunBatch(ctx, Target{Payers: []node.Node{payer}, Payee: &fakeNode{name: "bob"}, Mode: ModeInvoice},
		Batch{Concurrency: 2, Total: 1000}, nil, c.sink)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
	if len(c.recs) == 0 || len(c.recs) > 8 {
		t.Fatalf("%d records after cancel", len(c.recs))
	}
	for _, r := range c.recs {
		if r.Status != result.Succeeded {
			t.Fatalf("an interrupted payment was recorded: %+v", r)
		}
	}
}

func TestOpenLoopSchedulesIndependentlyOfCompletion(t *testing.T) {
	// 200/s for 40 payments that each take 100 ms: a closed loop with one
	// worker would need 4 s; open loop starts all within ~0.2 s.
	payer := &fakeNode{name: "alice", delay: 100 * time.Millisecond}
	var c collect
	start := time.Now()
	res, err := RunOpen(context.Background(), Target{Payers: []node.Node{payer}, Payee: &fakeNode{name: "bob"}, Mode: ModeKeysend, PayeePubKey: "02ab"},
		OpenBatch{Batch: Batch{Total: 40}, Pacer: ConstantRate{200}}, nil, c.sink)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > time.Second {
		t.Fatalf("open loop took %v", el)
	}
	if res.Succeeded != 40 || payer.peak.Load() < 10 {
		t.Fatalf("ok %d, peak in flight %d", res.Succeeded, payer.peak.Load())
	}
	for _, r := range c.recs {
		want := res.Start.Add(ConstantRate{200}.Offset(r.Seq))
		if !r.Start.Equal(want) {
			t.Fatalf("seq %d start %v, want scheduled %v", r.Seq, r.Start, want)
		}
		if r.Latency() < 100*time.Millisecond {
			t.Fatalf("latency %v below the payment time", r.Latency())
		}
	}
}

func TestOpenLoopQueueingCountsInLatency(t *testing.T) {
	// MaxInFlight 1 with 50 ms payments at 100/s: payments queue, and the
	// queueing shows in latency measured from the schedule.
	payer := &fakeNode{name: "alice", delay: 50 * time.Millisecond}
	var c collect
	_, err := RunOpen(context.Background(), Target{Payers: []node.Node{payer}, Payee: &fakeNode{name: "bob"}, Mode: ModeKeysend, PayeePubKey: "02ab"},
		OpenBatch{Batch: Batch{Total: 6}, Pacer: ConstantRate{100}, MaxInFlight: 1}, nil, c.sink)
	if err != nil {
		t.Fatal(err)
	}
	var last result.Record
	for _, r := range c.recs {
		if r.Seq == 5 {
			last = r
		}
	}
	if last.Latency() < 200*time.Millisecond || last.QueueNs < int64(150*time.Millisecond) {
		t.Fatalf("last payment latency %v, queue %v: queueing hidden", last.Latency(), time.Duration(last.QueueNs))
	}
}
