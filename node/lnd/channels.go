package lnd

import (
	"context"
	"fmt"

	"github.com/lightningnetwork/lnd/lnrpc"

	"github.com/lnbench/lnbench/node"
)

// ChannelStates reads every open channel's commitment height and HTLCs in
// flight with one ListChannels call.
func (d *Driver) ChannelStates(ctx context.Context) ([]node.ChannelState, error) {
	r, err := d.ln.ListChannels(d.ctx(ctx), &lnrpc.ListChannelsRequest{})
	if err != nil {
		return nil, fmt.Errorf("%s: ListChannels: %w", d.name, err)
	}
	out := make([]node.ChannelState, 0, len(r.Channels))
	for _, c := range r.Channels {
		out = append(out, channelState(c))
	}
	return out, nil
}

func channelState(c *lnrpc.Channel) node.ChannelState {
	s := node.ChannelState{ChanPoint: c.ChannelPoint, PeerPubKey: c.RemotePubkey, Initiator: c.Initiator,
		NumUpdates: c.NumUpdates, PendingHTLCs: len(c.PendingHtlcs)}
	// Each end caps the HTLCs it accepts; the lower cap binds first.
	for _, k := range []*lnrpc.ChannelConstraints{c.LocalConstraints, c.RemoteConstraints} {
		if k != nil && k.MaxAcceptedHtlcs > 0 && (s.MaxAcceptedHTLCs == 0 || int(k.MaxAcceptedHtlcs) < s.MaxAcceptedHTLCs) {
			s.MaxAcceptedHTLCs = int(k.MaxAcceptedHtlcs)
		}
	}
	return s
}

var _ node.ChannelReader = (*Driver)(nil)
