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

type held struct {
	id uint32
	at time.Time
}

// Run holds the packets of NFQUEUE queue for s's delay until ctx ends.
// Release times never decrease (Schedule), so one FIFO worker releases
// them in order. The rule that feeds the queue has --queue-bypass: once
// this exits, packets flow undelayed rather than being dropped.
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
	fifo := make(chan held, maxQueue)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case p := <-fifo:
				if w := time.Until(p.at); w > 0 {
					time.Sleep(w)
				}
				if err := nf.SetVerdict(p.id, nfqueue.NfAccept); err != nil {
					// One lost verdict drops one packet (fail-open covers a
					// full queue); keep delaying the rest.
					fmt.Fprintf(log, "netdelay: queue %d: verdict: %v\n", queue, err)
				}
			}
		}
	}()
	hook := func(a nfqueue.Attribute) int {
		if a.PacketID == nil {
			return 0
		}
		fifo <- held{id: *a.PacketID, at: s.Release(time.Now())}
		return 0
	}
	onErr := func(err error) int {
		if ctx.Err() != nil {
			return 1 // the read deadline that ends Register
		}
		fmt.Fprintf(log, "netdelay: queue %d: %v\n", queue, err)
		return 0
	}
	if err := nf.RegisterWithErrorFunc(ctx, hook, onErr); err != nil {
		return fmt.Errorf("nfqueue %d: %w", queue, err)
	}
	fmt.Fprintf(log, "netdelay: queue %d, delay %v ± %v\n", queue, s.Delay, s.Jitter)
	<-ctx.Done()
	return nil
}
