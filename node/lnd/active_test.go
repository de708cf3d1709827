package lnd

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lightningnetwork/lnd/lnrpc"
	"google.golang.org/grpc"
)

// quietChannels is a node whose channels turn active without an event on
// the stream (the activation came before the subscription was made).
type quietChannels struct {
	lnrpc.LightningClient
	lists  atomic.Int32
	active func(lists int32) int
}

func (q *quietChannels) SubscribeChannelEvents(ctx context.Context, _ *lnrpc.ChannelEventSubscription, _ ...grpc.CallOption) (lnrpc.Lightning_SubscribeChannelEventsClient, error) {
	return silentStream{ctx: ctx}, nil
}

func (q *quietChannels) ListChannels(context.Context, *lnrpc.ListChannelsRequest, ...grpc.CallOption) (*lnrpc.ListChannelsResponse, error) {
	return &lnrpc.ListChannelsResponse{Channels: make([]*lnrpc.Channel, q.active(q.lists.Add(1)))}, nil
}

// silentStream sends nothing until its context ends.
type silentStream struct {
	grpc.ClientStream
	ctx context.Context
}

func (s silentStream) Recv() (*lnrpc.ChannelEventUpdate, error) {
	<-s.ctx.Done()
	return nil, s.ctx.Err()
}

func TestWaitActiveChannelsListsAgainWithoutAnEvent(t *testing.T) {
	defer func(was time.Duration) { activeRelist = was }(activeRelist)
	activeRelist = 20 * time.Millisecond
	q := &quietChannels{active: func(lists int32) int {
		if lists < 2 {
			return 3
		}
		return 4
	}}
	d := &Driver{name: "n053", ln: q}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	if err := d.WaitActiveChannels(ctx, 4); err != nil {
		t.Fatalf("WaitActiveChannels: %v after %d lists", err, q.lists.Load())
	}
	if took := time.Since(start); took > 2*activeRelist {
		t.Errorf("took %v, want about one relist (%v)", took, activeRelist)
	}
}

func TestWaitActiveChannelsEndsWithItsContext(t *testing.T) {
	q := &quietChannels{active: func(int32) int { return 1 }}
	d := &Driver{name: "n053", ln: q}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := d.WaitActiveChannels(ctx, 2); err == nil {
		t.Fatal("WaitActiveChannels returned nil with one of two channels active")
	}
}
