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
