package lnd

import (
	"testing"

	"github.com/lightningnetwork/lnd/lnrpc"
)

func TestChannelStateTakesTheLowerHTLCCap(t *testing.T) {
	for _, tc := range []struct {
		name          string
		local, remote *lnrpc.ChannelConstraints
		want          int
	}{
		{"both", &lnrpc.ChannelConstraints{MaxAcceptedHtlcs: 483}, &lnrpc.ChannelConstraints{MaxAcceptedHtlcs: 30}, 30},
		{"local only", &lnrpc.ChannelConstraints{MaxAcceptedHtlcs: 483}, nil, 483},
		{"none", nil, nil, 0},
	} {
		c := &lnrpc.Channel{ChannelPoint: "tx:0", RemotePubkey: "02ab", Initiator: true, NumUpdates: 7,
			PendingHtlcs: make([]*lnrpc.HTLC, 3), LocalConstraints: tc.local, RemoteConstraints: tc.remote}
		s := channelState(c)
		if s.MaxAcceptedHTLCs != tc.want || s.NumUpdates != 7 || s.PendingHTLCs != 3 || !s.Initiator || s.PeerPubKey != "02ab" {
			t.Errorf("%s: %+v, want cap %d", tc.name, s, tc.want)
		}
	}
}
