package runner

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/record/chanstate"
	"github.com/lnbench/lnbench/scenario"
)

// chanNode is a node that reads its one channel: each read sees 10 more
// commitment updates than the one before.
type chanNode struct {
	node.Node
	peer  string
	reads atomic.Int64
	err   error
}

func (n *chanNode) ChannelStates(context.Context) ([]node.ChannelState, error) {
	if n.err != nil {
		return nil, n.err
	}
	k := n.reads.Add(1)
	return []node.ChannelState{{ChanPoint: "tx:0", PeerPubKey: n.peer, Initiator: n.peer == "pk-bob", NumUpdates: uint64(10 * k),
		PendingHTLCs: 2, MaxAcceptedHTLCs: 483}}, nil
}

func TestChannelWatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), chanstate.FileName)
	var log bytes.Buffer
	nodes := map[string]node.ChannelReader{"alice": &chanNode{peer: "pk-bob"}, "bob": &chanNode{peer: "pk-alice"},
		"carol": &chanNode{err: errors.New("carol: ListChannels: unavailable\nmore")}}
	pks := map[string]string{"alice": "pk-alice", "bob": "pk-bob"}
	cw, err := newChannelWatch(path, "net", nodes, pks, &log)
	if err != nil || cw == nil {
		t.Fatalf("%v %v", cw, err)
	}
	on := scenario.Case{Values: []scenario.Value{{Name: "Concurrency", Value: "5"}}}
	off := scenario.Case{Values: []scenario.Value{{Name: "ResourceSampling", Value: "off"}}}
	ctx := context.Background()
	cw.iteration(ctx, on, "measure", 3)
	cw.iterationEnd(ctx)
	cw.iteration(ctx, off, "measure", 0) // not read: its resources are not sampled either
	cw.iterationEnd(ctx)
	cw.close()
	got, err := chanstate.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var summary []string
	for _, r := range got {
		if r.Case != "Concurrency=5" || r.Iteration != 3 || r.Network != "net" || len(r.Channels) != 1 {
			t.Errorf("reading %+v", r)
			continue
		}
		ch := r.Channels[0]
		summary = append(summary, r.Point+":"+r.Node+"→"+ch.Peer)
		if ch.MaxAccepted != 483 || ch.Pending != 2 || ch.Initiator != (r.Node == "alice") {
			t.Errorf("channel %+v", ch)
		}
	}
	if s := strings.Join(summary, " "); s != "start:alice→bob start:bob→alice end:alice→bob end:bob→alice" {
		t.Errorf("readings %s", s)
	}
	if got[2].Channels[0].Updates != 20 {
		t.Errorf("the end reading is not the second: %+v", got[2])
	}
	if strings.Count(log.String(), "channel readings: carol: ListChannels: unavailable\n") != 1 {
		t.Errorf("log %q", log.String())
	}
	none, err := newChannelWatch(path, "net", map[string]node.ChannelReader{}, nil, &log)
	if none != nil || err != nil {
		t.Errorf("a network without channel readers: %v %v", none, err)
	}
}

// lostNode answers its first read, then never again until its context ends:
// a node behind a lost engine.
type lostNode struct {
	node.Node
	reads atomic.Int64
}

func (n *lostNode) ChannelStates(ctx context.Context) ([]node.ChannelState, error) {
	if n.reads.Add(1) > 1 {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return nil, nil
}

// An iteration that failed midway leaves its poll running; closing the
// watch must not wait on an unreachable node (it once read again without a
// deadline and hung the swarm engine-loss run).
func TestChannelWatchClosesWithoutReadingAgain(t *testing.T) {
	cw, err := newChannelWatch(filepath.Join(t.TempDir(), chanstate.FileName), "net", map[string]node.ChannelReader{"bob": &lostNode{}}, nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cw.iteration(ctx, scenario.Case{}, "measure", 0)
	cancel() // the watchdog: the case's context ends, its iteration never does
	done := make(chan struct{})
	go func() { cw.close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("close waited on an unreachable node")
	}
}
