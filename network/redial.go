package network

import (
	"context"
	"fmt"
	"sync"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/node"
)

// handle is a node whose connection can be replaced after the node
// restarted (its ports may have changed), while the load and the network
// keep holding the same value.
type handle struct {
	mu sync.RWMutex
	n  node.Node
}

func (h *handle) cur() node.Node {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.n
}

// swap puts a new connection in place and returns the old one.
func (h *handle) swap(n node.Node) node.Node {
	h.mu.Lock()
	defer h.mu.Unlock()
	old := h.n
	h.n = n
	return old
}

func (h *handle) Name() string                                { return h.cur().Name() }
func (h *handle) WaitReady(ctx context.Context) error         { return h.cur().WaitReady(ctx) }
func (h *handle) Info(ctx context.Context) (node.Info, error) { return h.cur().Info(ctx) }
func (h *handle) NewAddress(ctx context.Context) (string, error) {
	return h.cur().NewAddress(ctx)
}
func (h *handle) ConfirmedBalance(ctx context.Context) (int64, error) {
	return h.cur().ConfirmedBalance(ctx)
}
func (h *handle) Connect(ctx context.Context, pubKey, hostPort string) error {
	return h.cur().Connect(ctx, pubKey, hostPort)
}
func (h *handle) OpenChannels(ctx context.Context, reqs []node.ChannelRequest) error {
	return h.cur().OpenChannels(ctx, reqs)
}
func (h *handle) WaitActiveChannels(ctx context.Context, n int) error {
	return h.cur().WaitActiveChannels(ctx, n)
}
func (h *handle) WaitRoute(ctx context.Context, destPubKey string, amtSat int64) error {
	return h.cur().WaitRoute(ctx, destPubKey, amtSat)
}
func (h *handle) AddInvoice(ctx context.Context, amtSat int64, memo string) (node.Invoice, error) {
	return h.cur().AddInvoice(ctx, amtSat, memo)
}
func (h *handle) Pay(ctx context.Context, p node.Payment) (node.PaymentResult, error) {
	return h.cur().Pay(ctx, p)
}
func (h *handle) ForwardedCount(ctx context.Context) (int, error) {
	return h.cur().ForwardedCount(ctx)
}
func (h *handle) Close() error { return h.cur().Close() }

// PaymentHops reads the route log of a payer whose driver keeps one
// (node.HopsReader); false for the others.
func (h *handle) PaymentHops(paymentHash string) (int, bool) {
	if r, ok := h.cur().(node.HopsReader); ok {
		return r.PaymentHops(paymentHash)
	}
	return 0, false
}

// Disconnect drops the connection to a peer where the driver can
// (node.Disconnecter); nil where it cannot.
func (h *handle) Disconnect(ctx context.Context, pubKey string) error {
	if d, ok := h.cur().(node.Disconnecter); ok {
		return d.Disconnect(ctx, pubKey)
	}
	return nil
}

// Redial connects to a restarted node at its endpoint now, in place of the
// old connection: calls already made on the old one end with its errors,
// later ones go to the new one.
func (n *Network) Redial(name string, ep backend.NodeEndpoint) error {
	nd, ok := n.Topology.Node(name)
	if !ok {
		return fmt.Errorf("redial %s: not a node of this network", name)
	}
	drv, err := n.drivers.Lookup(nd.Implementation)
	if err != nil {
		return fmt.Errorf("redial %s: %w", name, err)
	}
	client, err := drv.Dial(name, node.Endpoint{RPCHost: ep.RPCHost, TLSCertPath: ep.TLSCertPath, MacaroonPath: ep.MacaroonPath, Database: ep.Database, RouteLog: ep.RouteLog})
	if err != nil {
		return fmt.Errorf("redial %s: %w", name, err)
	}
	n.mu.Lock()
	h, ok := n.Nodes[name].(*handle)
	n.Endpoints[name] = ep
	n.mu.Unlock()
	if !ok {
		client.Close()
		return fmt.Errorf("redial %s: the network holds no reconnectable handle for it", name)
	}
	h.swap(client).Close()
	return nil
}

// ChannelCount is how many channels a node has in the topology: all of
// them are active again once a restarted node has recovered.
func (n *Network) ChannelCount(name string) int {
	count := 0
	for _, c := range n.Topology.Channels {
		if c.From == name || c.To == name {
			count++
		}
	}
	return count
}

// ChannelReaders are the nodes whose driver reads its channels
// (node.ChannelReader), by name. Each reads through the node's handle, so
// a redialled node is read on its new connection.
func (n *Network) ChannelReaders() map[string]node.ChannelReader {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := map[string]node.ChannelReader{}
	for name, nd := range n.Nodes {
		h, ok := nd.(*handle)
		if !ok {
			if r, ok := nd.(node.ChannelReader); ok {
				out[name] = r
			}
			continue
		}
		if _, ok := h.cur().(node.ChannelReader); ok {
			out[name] = channelReader{h}
		}
	}
	return out
}

type channelReader struct{ h *handle }

func (r channelReader) ChannelStates(ctx context.Context) ([]node.ChannelState, error) {
	cr, ok := r.h.cur().(node.ChannelReader)
	if !ok {
		return nil, fmt.Errorf("%s: its driver no longer reads channels", r.h.cur().Name())
	}
	return cr.ChannelStates(ctx)
}
