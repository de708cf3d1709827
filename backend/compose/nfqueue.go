package compose

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/composefile"
)

// Mechanisms that delay and drop packets (a rate limit is always HTB).
const (
	// MechNetem: netem qdiscs under the HTB classes (the kernel has sch_netem).
	MechNetem = "netem"
	// MechNFQueue: without netem, iptables drops packets at random
	// (-m statistic) and sends those to delay to an NFQUEUE held by a
	// `lnbench netdelay` helper in the actor's network namespace.
	MechNFQueue = "nfqueue"
)

// nfChain and nfInChain are the actor's own filter chains, jumped to from
// OUTPUT (loss) and INPUT (delay).
const (
	nfChain   = "LNBENCH"
	nfInChain = "LNBENCH_IN"
)

// delayer is one `lnbench netdelay` helper: the queue it holds and for how long.
type delayer struct {
	Queue int
	Imp   backend.Impairment
}

// nfRules renders the delay and loss of an actor's impairments as an
// iptables-restore input (--noflush: only our chains are rewritten) and
// the delayers its NFQUEUE rules need.
//
// Loss drops the actor's outgoing packets, as netem would. Delay holds its
// incoming ones (from the peer, or all on eth0) instead: a packet queued
// on the way out stays charged to its TCP socket, and TCP small queues
// then lets only two packets per connection wait in the delay at once, so
// a transfer crawls (256 KiB over one connection: 2.9 s held on the way
// out, 0.34 s on the way in, for a 50 ms delay). On the way in the
// sender's accounting is done; a round trip shifts by the delay either
// way. As with tcBatch's classes, a link's impairment replaces the
// whole-interface one for that peer: its rules end in RETURN.
// --queue-bypass lets packets through if the delayer is gone rather than
// dropping them. Queue 0 is the whole interface's, then one per link in
// peer name order.
func nfRules(whole backend.Impairment, links []link) (string, []delayer) {
	links = append([]link(nil), links...)
	sort.Slice(links, func(i, j int) bool { return links[i].Peer < links[j].Peer })
	out := []string{"*filter", ":" + nfChain + " - [0:0]", ":" + nfInChain + " - [0:0]"}
	var in []string
	var ds []delayer
	rules := func(to, from string, queue int, imp backend.Impairment) {
		if imp.LossPercent > 0 {
			p := strconv.FormatFloat(imp.LossPercent/100, 'f', -1, 64)
			out = append(out, fmt.Sprintf("-A %s %s -m statistic --mode random --probability %s -j DROP", nfChain, to, p))
		}
		if imp.Delay > 0 {
			in = append(in, fmt.Sprintf("-A %s %s -j NFQUEUE --queue-num %d --queue-bypass", nfInChain, from, queue))
			ds = append(ds, delayer{Queue: queue, Imp: imp})
		}
	}
	for i, l := range links {
		to, from := "-d "+l.IP+"/32", "-s "+l.IP+"/32"
		rules(to, from, i+1, l.Imp)
		out = append(out, fmt.Sprintf("-A %s %s -j RETURN", nfChain, to))
		in = append(in, fmt.Sprintf("-A %s %s -j RETURN", nfInChain, from))
	}
	rules("-o "+netDev, "-i "+netDev, 0, whole)
	return strings.Join(append(append(out, in...), "COMMIT"), "\n") + "\n", ds
}

// nfScript runs in a helper: it rewrites our chains from stdin and makes
// sure OUTPUT and INPUT jump to them (once).
const nfScript = "iptables-restore --noflush && " +
	"{ iptables -C OUTPUT -j " + nfChain + " 2>/dev/null || iptables -I OUTPUT 1 -j " + nfChain + "; } && " +
	"{ iptables -C INPUT -j " + nfInChain + " 2>/dev/null || iptables -I INPUT 1 -j " + nfInChain + "; }"

// rateOnly keeps an impairment's rate limit, for the HTB tree when delay
// and loss are iptables' job.
func rateOnly(imp backend.Impairment) backend.Impairment {
	return backend.Impairment{RateKbit: imp.RateKbit}
}

// netdelayArgs are the delayer's command line.
func netdelayArgs(d delayer) []string {
	args := []string{"netdelay", "--queue", strconv.Itoa(d.Queue), "--delay", d.Imp.Delay.String()}
	if d.Imp.Jitter > 0 {
		args = append(args, "--jitter", d.Imp.Jitter.String())
	}
	return args
}

// nfProbe fails exactly when nfRules' rules would: it adds both kinds to
// the loopback of a throwaway network namespace.
const nfProbe = "iptables -A OUTPUT -o lo -m statistic --mode random --probability 0.05 -j DROP && " +
	"iptables -A INPUT -i lo -j NFQUEUE --queue-num 0 --queue-bypass"

// DelayerRole is the lnbench.role label of the `lnbench netdelay` helpers;
// delayerOf names the actor whose namespace one is in.
const (
	DelayerRole = "netdelay"
	delayerOf   = "lnbench.netdelay.of"
)

// applyNF rewrites the actor's iptables chain for the delay and loss of
// whole and links, with one running delayer per delayed target. The old
// delayers go first: until the new ones bind, --queue-bypass lets packets
// through undelayed rather than dropping them.
func (b *Backend) applyNF(ctx context.Context, id, image string, whole backend.Impairment, links []link) error {
	name, err := b.serviceOf(ctx, id)
	if err != nil {
		return err
	}
	rules, ds := nfRules(whole, links)
	if len(ds) > 0 && b.opts.Tool == "" {
		return fmt.Errorf("a delay without netem needs the static lnbench in the helper: none is mounted (build lnbench with CGO_ENABLED=0)")
	}
	if err := b.removeDelayers(ctx, name); err != nil {
		return err
	}
	for _, d := range ds {
		if _, err := docker(ctx, delayerArgs(b.opts.RunID, b.opts.Network, name, id, image, b.opts.Tool, d)...); err != nil {
			return fmt.Errorf("starting the delayer of queue %d in %s's network namespace: %s", d.Queue, name, complaint(err))
		}
	}
	args := helperArgs(b.opts.RunID, b.opts.Network, id, image)
	args[len(args)-1] = nfScript
	if _, err := dockerInput(ctx, rules, args...); err != nil {
		return fmt.Errorf("iptables in %s's network namespace: %s", name, complaint(err))
	}
	return nil
}

// serviceOf is the compose service of one of this backend's containers.
func (b *Backend) serviceOf(ctx context.Context, id string) (string, error) {
	return docker(ctx, "inspect", "--format", `{{index .Config.Labels "com.docker.compose.service"}}`, id)
}

// removeDelayers removes the delayers of an actor ("": of every actor of
// this network).
func (b *Backend) removeDelayers(ctx context.Context, name string) error {
	filters := []string{runFilter(b.opts.RunID), "label=lnbench.role=" + DelayerRole}
	if b.opts.Network != "" {
		filters = append(filters, "label="+composefile.NetworkLabel+"="+b.opts.Network)
	}
	if name != "" {
		filters = append(filters, "label="+delayerOf+"="+name)
	}
	_, err := remove(ctx, filters...)
	return err
}

// delayerArgs is the `docker run` of a detached delayer for d in
// container target's network namespace, running the mounted static lnbench.
func delayerArgs(runID, network, name, target, image, tool string, d delayer) []string {
	args := helperArgs(runID, network, target, image)
	args = slices.Replace(args, 0, 3, "run", "-d", "--rm") // not interactive: it runs until removed
	for i, a := range args {
		if a == "lnbench.role="+HelperRole {
			args[i] = "lnbench.role=" + DelayerRole
		}
	}
	ep := slices.Index(args, "--entrypoint")
	args = append(args[:ep], "--label", delayerOf+"="+name, "-v", tool+":"+composefile.ContainerTool+":ro",
		"--entrypoint", composefile.ContainerTool, image)
	return append(args, netdelayArgs(d)...)
}
