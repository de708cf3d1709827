// Package load drives payments through nodes and emits one result.Record
// per payment. Closed loop (RunBatch): N workers, each starting its next
// payment when the previous one ends (the original LightningBenchmarks
// model). Open loop (RunOpen): payments start on a pacer's schedule.
package load

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/record/result"
)

// Payment modes.
const (
	ModeInvoice      = "invoice"      // payee creates the invoice inside the measured operation
	ModePregenerated = "pregenerated" // invoices created before timing starts
	ModeKeysend      = "keysend"      // spontaneous payment, no invoice
	// The payee creates one invoice and nothing is paid: the invoice
	// creation rate of CLN's tests/benchmark.py (test_invoice).
	ModeCreateInvoice = "create-invoice"
	// Core Lightning payers only: invoice mode paid with xpay, and CLN's
	// own benchmark shape (tests/benchmark.py): pregenerated invoices paid
	// with sendpay along a route found once per payee.
	ModeXpay    = "xpay"
	ModeSendpay = "sendpay"
)

// pregenerates tells the modes whose invoices are made before timing.
func pregenerates(mode string) bool { return mode == ModePregenerated || mode == ModeSendpay }

// method is the payer's payment command a mode asks for ("" = its default).
func method(mode string) string {
	switch mode {
	case ModeXpay:
		return "xpay"
	case ModeSendpay:
		return "sendpay"
	}
	return ""
}

// Target is who pays whom and how: Payers paying one Payee, or Pairs.
type Target struct {
	Payers      []node.Node
	Payee       node.Node
	PayeePubKey string
	// Pairs, when set, replace Payers and Payee: payment seq goes from
	// Pairs[seq%len].Payer to its Payee, in both loops.
	Pairs     []Pair
	Mode      string
	AmountSat int64
	Timeout   time.Duration
}

// Pair is one payer and the node it pays.
type Pair struct {
	Payer, Payee node.Node
	PayeePubKey  string
}

// route is who makes payment seq: the pair of seq, or the payer of a
// closed-loop worker (of seq in open loop) paying the one payee.
func (t Target) route(payerIndex, seq int) Pair {
	if len(t.Pairs) > 0 {
		return t.Pairs[seq%len(t.Pairs)]
	}
	return Pair{Payer: t.Payers[payerIndex%len(t.Payers)], Payee: t.Payee, PayeePubKey: t.PayeePubKey}
}

// hasPayers tells whether the target names anyone who pays.
func (t Target) hasPayers() bool { return len(t.Pairs) > 0 || len(t.Payers) > 0 }

// Batch is one iteration: Total payments spread over Concurrency workers.
type Batch struct {
	Case        string
	Phase       string
	Iteration   int
	Concurrency int
	Total       int
}

// BatchResult summarises one iteration.
type BatchResult struct {
	Start, End time.Time
	Succeeded  int
	Failed     int // failed, error or timed out
	Aborted    int // in flight when the harness stopped
}

// Duration is the iteration's wall time.
func (b BatchResult) Duration() time.Duration { return b.End.Sub(b.Start) }

// Prepared holds invoices made before timing for pregenerated mode.
type Prepared struct{ invoices []node.Invoice }

// Prepare creates the invoices a pregenerated batch will pay; other modes need nothing.
func Prepare(ctx context.Context, t Target, total int) (*Prepared, error) {
	if !pregenerates(t.Mode) {
		return nil, nil
	}
	p := &Prepared{invoices: make([]node.Invoice, total)}
	for i := range p.invoices {
		inv, err := t.route(0, i).Payee.AddInvoice(ctx, t.AmountSat, fmt.Sprintf("lnbench pre %d", i))
		if err != nil {
			return nil, err
		}
		p.invoices[i] = inv
	}
	return p, nil
}

// RunBatch runs one closed-loop iteration and sends every payment it
// started to sink. On cancellation it stops claiming work and returns ctx's
// error after the in-flight payments end; those are recorded as aborted
// (or with the outcome they reached).
func RunBatch(ctx context.Context, t Target, b Batch, pre *Prepared, sink func(result.Record) error) (BatchResult, error) {
	if b.Concurrency < 1 || b.Total < 1 {
		return BatchResult{}, fmt.Errorf("batch needs Concurrency ≥ 1 and Total ≥ 1, got %d and %d", b.Concurrency, b.Total)
	}
	if !t.hasPayers() {
		return BatchResult{}, errors.New("batch needs at least one payer or pair")
	}
	var next atomic.Int64
	var res BatchResult
	tl := &tally{res: &res, sink: sink}
	var wg sync.WaitGroup
	res.Start = time.Now()
	for w := 0; w < b.Concurrency; w++ {
		wg.Add(1)
		go func(worker int) {
			defer wg.Done()
			for ctx.Err() == nil {
				seq := int(next.Add(1)) - 1
				if seq >= b.Total {
					return
				}
				// A payment in flight when ctx ends is recorded too (aborted,
				// or its real outcome when it got one): every payment has a fate.
				rec := payOnce(ctx, t, t.route(worker, seq), pre, seq)
				rec.Case, rec.Phase, rec.Iteration, rec.Worker, rec.Seq = b.Case, b.Phase, b.Iteration, worker, seq
				tl.add(rec)
			}
		}(w)
	}
	wg.Wait()
	res.End = time.Now()
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, tl.err
}

// tally counts finished payments and hands them to the sink; safe for
// concurrent use by the workers of one batch. It keeps the first sink error.
type tally struct {
	mu   sync.Mutex
	res  *BatchResult
	sink func(result.Record) error
	err  error
}

func (t *tally) add(rec result.Record) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch rec.Status {
	case result.Succeeded:
		t.res.Succeeded++
	case result.Aborted:
		t.res.Aborted++
	default:
		t.res.Failed++
	}
	if err := t.sink(rec); err != nil && t.err == nil {
		t.err = err
	}
}

// payOnce performs one measured operation.
func payOnce(ctx context.Context, t Target, r Pair, pre *Prepared, seq int) result.Record {
	payer := r.Payer
	rec := result.Record{Payer: payer.Name(), Payee: r.Payee.Name(), Mode: t.Mode}
	rec.Start = time.Now()
	if t.Mode == ModeCreateInvoice {
		return createInvoice(ctx, t, r, rec)
	}
	pay := node.Payment{Timeout: t.Timeout, Method: method(t.Mode)}
	switch {
	case t.Mode == ModeKeysend:
		pay.KeysendDest, pay.AmountSat = r.PayeePubKey, t.AmountSat
	case pregenerates(t.Mode):
		pay.PaymentRequest = pre.invoices[seq].PaymentRequest
	default:
		inv, err := r.Payee.AddInvoice(ctx, t.AmountSat, "lnbench")
		rec.InvoiceNs = time.Since(rec.Start).Nanoseconds()
		if err != nil {
			rec.End = time.Now()
			setError(&rec, ctx, nil, "invoice: ", err)
			return rec
		}
		pay.PaymentRequest = inv.PaymentRequest
	}
	payStart := time.Now()
	// A payment whose HTLC is stuck (e.g. a peer died) never reaches a
	// terminal state on its own: bound it, so a worker is never lost.
	pctx, cancel := context.WithTimeout(ctx, t.Timeout+time.Minute)
	defer cancel()
	res, err := payer.Pay(pctx, pay)
	rec.End = time.Now()
	rec.PaymentNs = rec.End.Sub(payStart).Nanoseconds()
	switch {
	case err != nil:
		setError(&rec, ctx, pctx, "", err)
	case res.Succeeded:
		rec.Status, rec.Hops, rec.Parts, rec.Attempts = result.Succeeded, res.Hops, res.Parts, res.Attempts
		if hr, ok := payer.(node.HopsReader); ok && rec.Hops == 0 && res.PaymentHash != "" {
			rec.Hops, _ = hr.PaymentHops(res.PaymentHash)
		}
	default:
		rec.Status, rec.FailureReason, rec.Attempts = result.Failed, res.FailureReason, res.Attempts
	}
	return rec
}

// createInvoice is the measured operation of ModeCreateInvoice: the
// payee's invoice call, timed as a payment is, so every table reads it as
// one operation.
func createInvoice(ctx context.Context, t Target, r Pair, rec result.Record) result.Record {
	_, err := r.Payee.AddInvoice(ctx, t.AmountSat, "lnbench")
	rec.End = time.Now()
	rec.InvoiceNs = rec.End.Sub(rec.Start).Nanoseconds()
	if err != nil {
		setError(&rec, ctx, nil, "invoice: ", err)
		return rec
	}
	rec.Status = result.Succeeded
	return rec
}

// shortErr caps a failure reason's length so reports can group by it.
func shortErr(err error) string {
	s := err.Error()
	if len(s) > 160 {
		s = s[:160]
	}
	return s
}
