package load

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/lnbench/lnbench/record/result"
)

// OpenBatch is one open-loop iteration: Total payments started on the
// pacer's schedule whether or not earlier ones finished.
type OpenBatch struct {
	Batch
	Pacer Pacer
	// MaxInFlight bounds goroutines (1000 when unset); a payment due while
	// the bound is hit waits, and that wait counts in its latency
	// (measured from schedule).
	MaxInFlight int
}

// RunOpen runs an open-loop iteration. Each record's Start is the scheduled
// start, so queueing delay shows in latency (no coordinated omission);
// QueueNs is how late the payment actually began.
func RunOpen(ctx context.Context, t Target, b OpenBatch, pre *Prepared, sink func(result.Record) error) (BatchResult, error) {
	if b.Total < 1 || b.Pacer == nil || !t.hasPayers() {
		return BatchResult{}, fmt.Errorf("open-loop batch needs Total ≥ 1, a pacer and a payer or pair")
	}
	if b.MaxInFlight < 1 {
		b.MaxInFlight = 1000
	}
	slots := make(chan struct{}, b.MaxInFlight)
	var res BatchResult
	tl := &tally{res: &res, sink: sink}
	var wg sync.WaitGroup
	res.Start = time.Now()
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
loop:
	for i := 0; i < b.Total; i++ {
		due := res.Start.Add(b.Pacer.Offset(i))
		if d := time.Until(due); d > 0 {
			timer.Reset(d)
			select {
			case <-ctx.Done():
				break loop
			case <-timer.C:
			}
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			break loop
		}
		wg.Add(1)
		go func(seq int, due time.Time) {
			defer wg.Done()
			defer func() { <-slots }()
			queued := time.Since(due)
			rec := payOnce(ctx, t, t.route(seq, seq), pre, seq)
			rec.QueueNs = queued.Nanoseconds()
			rec.Start = due
			rec.Case, rec.Phase, rec.Iteration, rec.Worker, rec.Seq = b.Case, b.Phase, b.Iteration, -1, seq
			tl.add(rec)
		}(i, due)
	}
	wg.Wait()
	res.End = time.Now()
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, tl.err
}
