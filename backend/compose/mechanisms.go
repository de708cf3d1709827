package compose

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/composefile"
)

// MechHTB names the rate limit's mechanism in fault records.
const MechHTB = "htb"

// Mechanisms is how an engine's kernel can delay and drop packets.
type Mechanisms struct {
	// Delay is MechNetem or MechNFQueue; "" when neither works.
	Delay string
	// Loss is MechBPF; "" without cls_bpf or the ingress qdisc.
	Loss string
	// Why say in one line what is missing when Delay or Loss is "".
	DelayWhy, LossWhy string
}

// Check refuses, in one line, an impairment the kernel cannot apply.
func (m Mechanisms) Check(imp backend.Impairment) error {
	switch {
	case imp.Delay > 0 && m.Delay == "":
		return fmt.Errorf("network delay: %s", m.DelayWhy)
	case imp.LossPercent > 0 && m.Loss == "":
		return fmt.Errorf("packet loss: %s", m.LossWhy)
	}
	return nil
}

// Describe says how imp is applied and to which of the actor's packets:
// delay by netem on the way out, or by the NFQUEUE delayer on the way in;
// loss by BPF both ways; a rate limit by HTB on the way out.
func (m Mechanisms) Describe(imp backend.Impairment) (mechanism, direction string) {
	var mechs, dirs []string
	add := func(mech, dir string) {
		mechs = append(mechs, mech)
		if !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	if imp.Delay > 0 {
		dir := "outgoing"
		if m.Delay == MechNFQueue {
			dir = "incoming"
		}
		add(m.Delay, dir)
	}
	if imp.LossPercent > 0 {
		add(MechBPF, "both")
	}
	if imp.RateKbit > 0 {
		add(MechHTB, "outgoing")
	}
	if len(dirs) > 1 {
		dirs = []string{"both"} // e.g. delay in, rate out
	}
	return strings.Join(mechs, "+"), strings.Join(dirs, "")
}

// netemProbe adds a netem qdisc to the loopback of a throwaway network
// namespace: it fails exactly when Impair's delay would with netem.
const netemProbe = "tc qdisc add dev lo root netem delay 1ms"

// Probe tells, before a run starts anything, how the engine's kernel can
// delay and drop packets. The probes run in helpers with no network
// (image: a node image, which has iproute2 and iptables from the base).
func Probe(ctx context.Context, runID, image string) Mechanisms {
	probe := func(script string) error {
		args := helperArgs(runID, "", "none", image)
		args[slices.Index(args, "container:none")] = "none"
		args[len(args)-1] = script
		_, err := docker(ctx, args...)
		return err
	}
	var m Mechanisms
	if err := probe(dropProbe); err == nil {
		m.Loss = MechBPF
	} else {
		m.LossWhy = fmt.Sprintf("the Docker host's kernel cannot drop packets with a tc BPF filter (cls_bpf and sch_ingress: CONFIG_NET_CLS_BPF, CONFIG_NET_SCH_INGRESS): %s", complaint(err))
	}
	netemErr := probe(netemProbe)
	if netemErr == nil {
		m.Delay = MechNetem
		return m
	}
	if nfErr := probe(nfProbe); nfErr == nil {
		m.Delay = MechNFQueue
	} else {
		m.DelayWhy = fmt.Sprintf("%s; without netem, iptables NFQUEUE failed too (%s)",
			explainTC(netemErr.Error(), []string{"qdisc add dev lo root netem"}), complaint(nfErr))
	}
	return m
}

// exempt is the traffic no impairment touches: the harness's control
// connections, which reach the published ports from the compose network's
// gateway, and the sampler's profile requests. Faults impair the nodes'
// peer and chain traffic, not the measuring of it. Labels name each
// address for fault records.
func (b *Backend) exempt(ctx context.Context, id string) ([]netip.Addr, []string, error) {
	c, err := b.inspect1(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	var gws []string
	for _, n := range networksOf(c) {
		gws = append(gws, n.Gateway)
	}
	if len(gws) != 1 {
		return nil, nil, fmt.Errorf("container %s: want one gateway on the compose network, got %q", id[:min(12, len(id))], gws)
	}
	gw, err := netip.ParseAddr(gws[0])
	if err != nil {
		return nil, nil, fmt.Errorf("gateway %q: %w", gws[0], err)
	}
	addrs, labels := []netip.Addr{gw}, []string{"harness " + gw.String()}
	b.mu.Lock()
	sampling := b.started[composefile.SamplerService]
	b.mu.Unlock()
	if sampling {
		if sid, err := b.containerID(ctx, composefile.SamplerService); err == nil && sid != "" {
			if ip, err := b.containerIP(ctx, sid); err == nil {
				if a, err := netip.ParseAddr(ip); err == nil {
					addrs, labels = append(addrs, a), append(labels, "sampler "+ip)
				}
			}
		}
	}
	return addrs, labels, nil
}

// PrepareImpairments probes how this engine delays and drops packets
// before measuring starts, so the first impairment takes effect sooner
// after its trigger (the probes are three helper runs).
func (b *Backend) PrepareImpairments(ctx context.Context) error {
	b.mu.Lock()
	var first string
	if len(b.spec.Nodes) > 0 {
		first = b.spec.Nodes[0].Name
	}
	b.mu.Unlock()
	b.faultMu.Lock()
	defer b.faultMu.Unlock()
	if b.probed || first == "" {
		return nil
	}
	id, err := b.serviceContainer(ctx, "probe impairments on", first)
	if err != nil {
		return err
	}
	image, err := b.imageOf(ctx, id)
	if err != nil {
		return err
	}
	b.mech, b.probed = Probe(ctx, b.opts.RunID, image), true
	return nil
}
