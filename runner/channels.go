package runner

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/lnbench/lnbench/internal/lines"
	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/record/chanstate"
	"github.com/lnbench/lnbench/scenario"
)

// channelPollEvery is how often HTLCs in flight are read during an
// iteration: one ListChannels per node, cheap beside the payments.
const channelPollEvery = time.Second

// channelWatch reads the channels of every node whose driver can
// (node.ChannelReader) at each iteration's start and end, and about once
// a second in between, into channels.jsonl: commitment updates per payment
// and HTLCs in flight for the bound naming. Cases with ResourceSampling
// off are not read, like their resources.
type channelWatch struct {
	w       *chanstate.Writer
	network string
	readers map[string]node.ChannelReader // by node name
	names   map[string]string             // pubkey → node name
	log     io.Writer
	failed  sync.Map // first lines of errors logged once

	tag      chanstate.Reading // the iteration being read ("" Case: none)
	stopPoll chan struct{}
	polled   chan struct{}
}

// newChannelWatch is nil when no node can read its channels (CLN only).
func newChannelWatch(path, network string, readers map[string]node.ChannelReader, pubKeys map[string]string, log io.Writer) (*channelWatch, error) {
	cw := &channelWatch{network: network, readers: readers, names: map[string]string{}, log: log}
	if len(cw.readers) == 0 {
		return nil, nil
	}
	for name, pk := range pubKeys {
		cw.names[pk] = name
	}
	var err error
	if cw.w, err = chanstate.Create(path); err != nil {
		return nil, err
	}
	return cw, nil
}

// iteration reads the start of an iteration and polls until iterationEnd.
func (cw *channelWatch) iteration(ctx context.Context, c scenario.Case, phase string, i int) {
	if cw == nil || !c.ResourceSampling() {
		return
	}
	cw.iterationEnd(ctx) // an iteration that failed midway never ended
	cw.tag = chanstate.Reading{Network: cw.network, Case: c.ID(), Phase: phase, Iteration: i}
	cw.read(ctx, chanstate.Start)
	cw.stopPoll, cw.polled = make(chan struct{}), make(chan struct{})
	go func(stop, done chan struct{}) {
		defer close(done)
		t := time.NewTicker(channelPollEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				cw.read(ctx, chanstate.Poll)
			}
		}
	}(cw.stopPoll, cw.polled)
}

// iterationEnd stops the poll and reads the iteration's end.
func (cw *channelWatch) iterationEnd(ctx context.Context) {
	if cw == nil || cw.stopPoll == nil {
		return
	}
	close(cw.stopPoll)
	<-cw.polled
	cw.stopPoll = nil
	cw.read(ctx, chanstate.End)
	cw.tag = chanstate.Reading{}
}

// read writes one reading per node, all nodes at once so that the start
// and end of an iteration are one instant as nearly as can be.
func (cw *channelWatch) read(ctx context.Context, point string) {
	names := make([]string, 0, len(cw.readers))
	for name := range cw.readers {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]*chanstate.Reading, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			states, err := cw.readers[name].ChannelStates(ctx)
			if err != nil {
				cw.logOnce(err)
				return
			}
			r := cw.tag
			r.Time, r.Point, r.Node = time.Now(), point, name
			for _, s := range states {
				peer := cw.names[s.PeerPubKey]
				if peer == "" {
					peer = s.PeerPubKey // a node outside the topology
				}
				r.Channels = append(r.Channels, chanstate.Channel{Point: s.ChanPoint, Peer: peer, Initiator: s.Initiator,
					Updates: s.NumUpdates, Pending: s.PendingHTLCs, MaxAccepted: s.MaxAcceptedHTLCs})
			}
			out[i] = &r
		}()
	}
	wg.Wait()
	for _, r := range out {
		if r != nil {
			if err := cw.w.Write(*r); err != nil {
				cw.logOnce(err)
			}
		}
	}
}

func (cw *channelWatch) logOnce(err error) {
	key := lines.First(err.Error())
	if _, seen := cw.failed.LoadOrStore(key, true); !seen {
		fmt.Fprintf(cw.log, "channel readings: %s\n", key)
	}
}

// close stops a poll an iteration that failed midway left running, with
// no last reading: a node may be unreachable (a lost engine), and a read
// without a deadline would wait on it for ever.
func (cw *channelWatch) close() {
	if cw == nil {
		return
	}
	if cw.stopPoll != nil {
		close(cw.stopPoll)
		<-cw.polled
		cw.stopPoll = nil
	}
	cw.w.Close()
}
