package compose

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/lnbench/lnbench/backend"
)

// Mechanisms that delay packets (loss is always MechBPF, a rate limit HTB).
const (
	// MechNetem: netem qdiscs under the HTB classes (the kernel has
	// sch_netem): the actor's outgoing packets wait.
	MechNetem = "netem"
	// MechNFQueue: without netem, iptables sends the actor's incoming
	// packets to an NFQUEUE held by a `lnbench netdelay` helper in its
	// network namespace.
	MechNFQueue = "nfqueue"
)

// nfInChain is the actor's own filter chain, jumped to from INPUT.
const nfInChain = "LNBENCH_IN"

// delayer is one `lnbench netdelay` helper: the queue it holds, for how
// long, and the packets its rule sends it (From: "-s IP/32", "-i eth0").
type delayer struct {
	Queue int
	Imp   backend.Impairment
	From  string
}

// nfRules renders the delays of an actor's impairments as an
// iptables-restore input (--noflush: only our chain is rewritten) and the
// delayers its NFQUEUE rules need, numbered from queue on.
//
// Delay holds the actor's incoming packets (from the peer, or all on
// eth0), not its outgoing ones: a packet queued on the way out stays
// charged to its TCP socket, and TCP small queues then lets only two
// packets per connection wait in the delay at once, so a transfer crawls
// (256 KiB over one connection: 2.9 s held on the way out, 0.34 s on the
// way in, for a 50 ms delay). On the way in the sender's accounting is
// done; a round trip through the actor shifts by the delay either way.
// Exempt sources (the harness) come first and are never held. As with
// tcBatch's classes, a link's impairment replaces the whole-interface one
// for that peer: its rules end in RETURN. --queue-bypass lets packets
// through if no delayer holds the queue rather than dropping them.
func nfRules(whole backend.Impairment, links []link, exempt []netip.Addr, queue int) (string, []delayer) {
	in := []string{"*filter", ":" + nfInChain + " - [0:0]"}
	for _, a := range exempt {
		in = append(in, fmt.Sprintf("-A %s -s %s/32 -j RETURN", nfInChain, a))
	}
	var ds []delayer
	rule := func(from string, imp backend.Impairment) {
		if imp.Delay > 0 {
			in = append(in, fmt.Sprintf("-A %s %s -j NFQUEUE --queue-num %d --queue-bypass", nfInChain, from, queue))
			ds = append(ds, delayer{Queue: queue, Imp: imp, From: from})
			queue++
		}
	}
	for _, l := range sortedLinks(links) {
		from := "-s " + l.IP + "/32"
		rule(from, l.Imp)
		in = append(in, fmt.Sprintf("-A %s %s -j RETURN", nfInChain, from))
	}
	rule("-i "+netDev, whole)
	return strings.Join(append(in, "COMMIT"), "\n") + "\n", ds
}

// nfEnv carries nfRules' output into the helper (its stdin is tc's).
const nfEnv = "LNBENCH_NF"

// nfScript runs in the helper after tcScript: it rewrites our chain from
// $LNBENCH_NF and makes sure INPUT jumps to it (once).
const nfScript = "iptables-restore --noflush <<<\"$" + nfEnv + "\" && " +
	"{ iptables -C INPUT -j " + nfInChain + " 2>/dev/null || iptables -I INPUT 1 -j " + nfInChain + "; }"

// netdelayArgs are the delayer's command line.
func netdelayArgs(d delayer) []string {
	args := []string{"netdelay", "--queue", strconv.Itoa(d.Queue), "--delay", d.Imp.Delay.String()}
	if d.Imp.Jitter > 0 {
		args = append(args, "--jitter", d.Imp.Jitter.String())
	}
	return args
}

// nfProbe fails exactly when nfRules' rules would: it adds one to the
// loopback of a throwaway network namespace.
const nfProbe = "iptables -A INPUT -i lo -j NFQUEUE --queue-num 0 --queue-bypass"

// DelayerRole is the lnbench.role label of the `lnbench netdelay` helpers;
// delayerOf names the actor whose namespace one is in.
const (
	DelayerRole = "netdelay"
	delayerOf   = "lnbench.netdelay.of"
)
