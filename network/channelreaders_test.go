package network

import (
	"context"
	"testing"

	"github.com/lnbench/lnbench/node"
)

type plainNode struct {
	node.Node
	name string
}

func (p plainNode) Name() string { return p.name }

type readerNode struct{ plainNode }

func (readerNode) ChannelStates(context.Context) ([]node.ChannelState, error) {
	return []node.ChannelState{{ChanPoint: "tx:0", NumUpdates: 4}}, nil
}

// TestChannelReadersThroughHandles: the network's handles hide the
// driver's optional interface; ChannelReaders finds it and follows a
// redial to a connection that no longer has it.
func TestChannelReadersThroughHandles(t *testing.T) {
	alice := &handle{n: readerNode{plainNode{name: "alice"}}}
	n := &Network{Nodes: map[string]node.Node{"alice": alice, "carol": &handle{n: plainNode{name: "carol"}}}}
	rs := n.ChannelReaders()
	if len(rs) != 1 || rs["alice"] == nil {
		t.Fatalf("readers %v", rs)
	}
	if s, err := rs["alice"].ChannelStates(context.Background()); err != nil || len(s) != 1 || s[0].NumUpdates != 4 {
		t.Errorf("states %+v %v", s, err)
	}
	alice.swap(plainNode{name: "alice"})
	if _, err := rs["alice"].ChannelStates(context.Background()); err == nil {
		t.Error("a redialled node without the interface read its channels")
	}
}

type hopsNode struct{ plainNode }

func (hopsNode) PaymentHops(hash string) (int, bool) { return 3, hash == "ab" }

// The load asks a payer for hops through its handle: the handle forwards to
// a driver with a route log and says "unknown" for one without.
func TestPaymentHopsThroughHandles(t *testing.T) {
	var payer node.Node = &handle{n: hopsNode{plainNode{name: "alice"}}}
	hr, ok := payer.(node.HopsReader)
	if !ok {
		t.Fatal("a handle hides HopsReader")
	}
	if n, ok := hr.PaymentHops("ab"); !ok || n != 3 {
		t.Errorf("hops %d %v, want 3", n, ok)
	}
	payer.(*handle).swap(plainNode{name: "alice"})
	if _, ok := hr.PaymentHops("ab"); ok {
		t.Error("a node without a route log gave hops")
	}
}
