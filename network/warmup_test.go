package network

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/node"
)

// warmNode is a node that fails its first payments with reason.
type warmNode struct {
	node.Node
	name   string
	invErr error
	fails  int
	reason string
}

func (w *warmNode) Name() string { return w.name }

func (w *warmNode) AddInvoice(context.Context, int64, string) (node.Invoice, error) {
	return node.Invoice{PaymentRequest: "inv"}, w.invErr
}

func (w *warmNode) Pay(context.Context, node.Payment) (node.PaymentResult, error) {
	if w.fails != 0 {
		w.fails--
		return node.PaymentResult{FailureReason: w.reason}, nil
	}
	return node.PaymentResult{Succeeded: true}, nil
}

func TestWarmUpRetriesUntilAPaymentSucceeds(t *testing.T) {
	payer, payee := &warmNode{name: "alice", fails: 2, reason: "NO_ROUTE"}, &warmNode{name: "bob"}
	if err := WarmUp(context.Background(), payer, payee); err != nil || payer.fails != 0 {
		t.Fatalf("err %v, %d failures left", err, payer.fails)
	}
	// An invoice that cannot be made ends it at once, as it is.
	boom := errors.New("bob: AddInvoice: boom")
	if err := WarmUp(context.Background(), payer, &warmNode{name: "bob", invErr: boom}); err != boom {
		t.Errorf("err %v, want %v", err, boom)
	}
	// Never succeeding: the last reason and the context's end.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := WarmUp(ctx, &warmNode{name: "alice", fails: -1, reason: "NO_ROUTE"}, payee)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "warm-up payment alice→bob never succeeded (last: NO_ROUTE)") {
		t.Errorf("err %v", err)
	}
}
