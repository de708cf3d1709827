package netdelay

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	nfqueue "github.com/florianl/go-nfqueue/v2"
	"github.com/mdlayher/netlink"
)

// maxQueue is how many packets the kernel holds for us: a 50 ms delay at
// the rates a payment network sends is far below it.
const maxQueue = 8192

// rcvBuffer is the netlink socket's receive buffer (SO_RCVBUFFORCE: the
// helper has NET_ADMIN).
const rcvBuffer = 16 << 20

// quiet is how long no packet may arrive before a stopping delayer
// counts its queue as no longer fed.
const quiet = 200 * time.Millisecond

// drainBound caps how long a stopping delayer waits for its held packets
// beyond its longest possible delay; ruleGoneBound how long it then waits
// for the caller to remove its rule (a helper container's run).
const (
	drainBound    = 5 * time.Second
	ruleGoneBound = 30 * time.Second
)

// Run holds the packets of NFQUEUE queue for s's delay until ctx ends.
// Then it lifts the delay (later packets pass as soon as those held
// before them have: nothing overtaken, nothing dropped), writes the lifted
// line once the held ones are out, and goes on until its queue is fed no
// more (the caller removes the rule), then writes its Summary. The rule
// has --queue-bypass: once this exits, packets flow undelayed rather than
// being dropped.
func Run(ctx context.Context, queue uint16, s *Schedule, log io.Writer) error {
	if err := s.Check(); err != nil {
		return err
	}
	if s.Rand == nil {
		s.Rand = rand.Float64
	}
	nf, err := nfqueue.Open(&nfqueue.Config{NfQueue: queue, MaxQueueLen: maxQueue, MaxPacketLen: 0xffff,
		Copymode: nfqueue.NfQnlCopyMeta, Flags: nfqueue.NfQaCfgFlagFailOpen, WriteTimeout: time.Second})
	if err != nil {
		return fmt.Errorf("nfqueue %d: %w (the kernel needs CONFIG_NETFILTER_NETLINK_QUEUE, the process NET_ADMIN)", queue, err)
	}
	defer nf.Close()
	_ = nf.SetOption(netlink.NoENOBUFS, true)
	// When the socket's buffer is full the kernel lets a packet through
	// undelayed (fail-open), overtaking those held: make room for bursts.
	_ = nf.Con.SetReadBuffer(rcvBuffer)
	l := newLine(nf, nfqueue.NfAccept, s, func(err error) { fmt.Fprintf(log, "netdelay: queue %d: verdict: %v\n", queue, err) })
	stopWorker := make(chan struct{})
	go l.run(stopWorker)
	// Reading outlives ctx: a stopping delayer still takes what the kernel
	// queued before the rule went.
	readCtx, stopReading := context.WithCancel(context.Background())
	defer stopReading()
	hook := func(a nfqueue.Attribute) int {
		if a.PacketID != nil {
			l.add(*a.PacketID, time.Now())
		}
		return 0
	}
	onErr := func(err error) int {
		if readCtx.Err() != nil {
			return 1 // the read deadline that ends Register
		}
		fmt.Fprintf(log, "netdelay: queue %d: %v\n", queue, err)
		return 0
	}
	if err := nf.RegisterWithErrorFunc(readCtx, hook, onErr); err != nil {
		return fmt.Errorf("nfqueue %d: %w", queue, err)
	}
	fmt.Fprintf(log, boundFormat+"\n", queue, s.Delay, s.Jitter)
	<-ctx.Done()
	liftedAt := time.Now()
	lctx, cancelLift := context.WithTimeout(context.Background(), s.Delay+s.Jitter+drainBound)
	l.waitDone(lctx, l.lift())
	cancelLift()
	fmt.Fprintf(log, liftedFormat+"\n", queue, liftedAt.UnixNano())
	dctx, cancel := context.WithTimeout(context.Background(), ruleGoneBound)
	defer cancel()
	l.drain(dctx, quiet)
	stopReading()
	close(stopWorker)
	sum := l.summary(queue)
	if seq, ok := idSequence(queue); ok {
		sum.Bypassed = max(seq-sum.Held, 0)
	}
	fmt.Fprintln(log, sum)
	return nil
}
