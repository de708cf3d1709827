package compose

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/internal/lines"
)

var _ backend.FaultInjector = (*Backend)(nil)

// HelperRole is the lnbench.role label of the short-lived containers that
// change an actor's qdiscs.
const HelperRole = "netem-helper"

// impairments is what is applied to one actor's egress now.
type impairments struct {
	whole backend.Impairment
	links map[string]link // by peer name
}

func (im *impairments) empty() bool {
	return im == nil || (im.whole == backend.Impairment{} && len(im.links) == 0)
}

// serviceContainer is the container of one of this network's services, or
// an error naming the services there are.
func (b *Backend) serviceContainer(ctx context.Context, op, name string) (string, error) {
	services := b.services()
	if !slices.Contains(services, name) {
		return "", fmt.Errorf("%s %s: no such actor in this network (it has %s)", op, name, strings.Join(services, ", "))
	}
	id, err := b.containerID(ctx, name)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", op, name, err)
	}
	if id == "" {
		return "", fmt.Errorf("%s %s: its container was never started", op, name)
	}
	return id, nil
}

// Kill sends SIGKILL to the actor's container, as a crash would; the
// container stays (exited) for its logs until teardown.
func (b *Backend) Kill(ctx context.Context, name string) error {
	if err := b.dockerOn(ctx, "kill", name, "kill"); err != nil {
		return err
	}
	b.forgetImpairments(name) // its network namespace went with it
	if b.ImpairMechanism() == MechNFQueue {
		return b.removeDelayers(ctx, name)
	}
	return nil
}

// Pause freezes every process of the actor (the cgroup freezer).
func (b *Backend) Pause(ctx context.Context, name string) error {
	return b.dockerOn(ctx, "pause", name, "pause")
}

// Resume thaws a paused actor.
func (b *Backend) Resume(ctx context.Context, name string) error {
	return b.dockerOn(ctx, "resume", name, "unpause")
}

// dockerOn runs `docker <command> <the actor's container>`.
func (b *Backend) dockerOn(ctx context.Context, op, name, command string) error {
	id, err := b.serviceContainer(ctx, op, name)
	if err != nil {
		return err
	}
	if _, err := docker(ctx, command, id); err != nil {
		return fmt.Errorf("%s %s: %w", op, name, err)
	}
	return nil
}

// Restart stops the actor's container (SIGTERM, SIGKILL after its grace
// period) and starts the same container again: same bind-mounted data,
// same flags. Docker chooses the published host port anew, so the endpoint
// is read back and returned once TLS answers there. A paused actor is
// thawed first; a killed one just starts. Impairments on the actor are
// applied again (its network namespace is new), and links of others to it
// follow its address.
func (b *Backend) Restart(ctx context.Context, name string) (backend.NodeEndpoint, error) {
	id, err := b.serviceContainer(ctx, "restart", name)
	if err != nil {
		return backend.NodeEndpoint{}, err
	}
	if name == composefile.SamplerService {
		return backend.NodeEndpoint{}, fmt.Errorf("restart %s: the sampler is not an actor that can be restarted", name)
	}
	if status, _, err := containerState(ctx, id); err == nil && status == "paused" {
		if _, err := docker(ctx, "unpause", id); err != nil {
			return backend.NodeEndpoint{}, fmt.Errorf("restart %s: %w", name, err)
		}
	}
	if _, err := docker(ctx, "stop", "-t", "15", id); err != nil {
		return backend.NodeEndpoint{}, fmt.Errorf("restart %s: %w", name, err)
	}
	if _, err := docker(ctx, "start", id); err != nil {
		return backend.NodeEndpoint{}, fmt.Errorf("restart %s: %w", name, err)
	}
	var ep backend.NodeEndpoint
	if name == composefile.ChainService {
		host, cert, err := b.waitChain(ctx)
		if err != nil {
			return backend.NodeEndpoint{}, fmt.Errorf("restart %s: %w", name, err)
		}
		ep = backend.NodeEndpoint{Name: name, RPCHost: host, TLSCertPath: cert}
	} else {
		b.mu.Lock()
		i := slices.IndexFunc(b.spec.Nodes, func(n composefile.Node) bool { return n.Name == name })
		n := b.spec.Nodes[i]
		args := b.spec.NodeArgs(n)
		b.mu.Unlock()
		if ep, err = b.waitNode(ctx, b.nodeEndpoint(n, args)); err != nil {
			return backend.NodeEndpoint{}, fmt.Errorf("restart %s: %w", name, err)
		}
	}
	if err := b.reimpair(ctx, name); err != nil {
		return ep, fmt.Errorf("restart %s: it answers at %s, but re-applying impairments failed: %w", name, ep.RPCHost, err)
	}
	return ep, nil
}

// Impair applies imp to the actor's egress: all of it when peer is "",
// else only what goes to peer's address on the compose network. It adds to
// the actor's other impairments (one per peer, one for the whole
// interface); a second one for the same target replaces the first.
func (b *Backend) Impair(ctx context.Context, name, peer string, imp backend.Impairment) error {
	if err := checkImpairment(imp); err != nil {
		return fmt.Errorf("impair %s: %w", target(name, peer), err)
	}
	id, err := b.serviceContainer(ctx, "impair", name)
	if err != nil {
		return err
	}
	var l link
	if peer != "" {
		if peer == name {
			return fmt.Errorf("impair %s: a link needs two different actors", target(name, peer))
		}
		pid, err := b.serviceContainer(ctx, "impair "+name+" towards", peer)
		if err != nil {
			return err
		}
		ip, err := containerIP(ctx, pid)
		if err != nil {
			return fmt.Errorf("impair %s: %w", target(name, peer), err)
		}
		l = link{Peer: peer, IP: ip, Imp: imp}
	}
	b.faultMu.Lock()
	defer b.faultMu.Unlock()
	prev := b.impaired[name]
	next := &impairments{links: map[string]link{}}
	if prev != nil {
		next.whole, next.links = prev.whole, maps.Clone(prev.links)
	}
	if peer == "" {
		next.whole = imp
	} else {
		next.links[peer] = l
	}
	if err := b.applyTC(ctx, id, next); err != nil {
		// Leave what was there before, not half a tree.
		_ = b.applyTC(ctx, id, prev)
		return fmt.Errorf("impair %s: %w", target(name, peer), err)
	}
	b.setImpaired(name, next)
	return nil
}

// Clear removes the impairment Impair put on the same target; the actor's
// others stay.
func (b *Backend) Clear(ctx context.Context, name, peer string) error {
	id, err := b.serviceContainer(ctx, "clear", name)
	if err != nil {
		return err
	}
	b.faultMu.Lock()
	defer b.faultMu.Unlock()
	next := &impairments{links: map[string]link{}}
	if prev := b.impaired[name]; prev != nil {
		next.whole, next.links = prev.whole, maps.Clone(prev.links)
	}
	if peer == "" {
		next.whole = backend.Impairment{}
	} else {
		delete(next.links, peer)
	}
	if err := b.applyTC(ctx, id, next); err != nil {
		return fmt.Errorf("clear %s: %w", target(name, peer), err)
	}
	b.setImpaired(name, next)
	return nil
}

func target(name, peer string) string {
	if peer == "" {
		return name
	}
	return name + "~" + peer
}

// setImpaired records an actor's set; callers hold faultMu.
func (b *Backend) setImpaired(name string, im *impairments) {
	if im.empty() {
		delete(b.impaired, name)
		return
	}
	if b.impaired == nil {
		b.impaired = map[string]*impairments{}
	}
	b.impaired[name] = im
}

func (b *Backend) forgetImpairments(name string) {
	b.faultMu.Lock()
	delete(b.impaired, name)
	b.faultMu.Unlock()
}

// reimpair applies a restarted actor's impairments again, and those of
// others with a link to it, at its address now.
func (b *Backend) reimpair(ctx context.Context, name string) error {
	b.faultMu.Lock()
	defer b.faultMu.Unlock()
	var ip string
	for _, actor := range slices.Sorted(maps.Keys(b.impaired)) {
		im := b.impaired[actor]
		l, linked := im.links[name]
		if actor != name && !linked {
			continue
		}
		if linked && ip == "" {
			pid, err := b.containerID(ctx, name)
			if err != nil {
				return err
			}
			if ip, err = containerIP(ctx, pid); err != nil {
				return err
			}
		}
		if linked {
			l.IP = ip
			im.links[name] = l
		}
		id, err := b.containerID(ctx, actor)
		if err != nil {
			return err
		}
		if err := b.applyTC(ctx, id, im); err != nil {
			return fmt.Errorf("%s: %w", actor, err)
		}
	}
	return nil
}

// applyTC replaces the container's impairments with im: its egress
// qdiscs and, without netem, its iptables chain and delayers. Helpers run
// in its network namespace: the node keeps no capability, helpers have
// NET_ADMIN only and carry the run's label. Their image is the target's
// own (the project's Debian base with iproute2 and iptables: nothing is
// pulled). Callers hold faultMu.
func (b *Backend) applyTC(ctx context.Context, id string, im *impairments) error {
	image, err := docker(ctx, "inspect", "--format", "{{.Config.Image}}", id)
	if err != nil {
		return err
	}
	if b.mech == "" && im.delaysOrDrops() {
		if b.mech, err = Mechanism(ctx, b.opts.RunID, image); err != nil {
			return err
		}
	}
	whole, links := backend.Impairment{}, []link(nil)
	if !im.empty() {
		whole, links = im.whole, slices.Collect(maps.Values(im.links))
	}
	if b.mech == MechNFQueue {
		if err := b.applyNF(ctx, id, image, whole, links); err != nil {
			return err
		}
		whole, links = rateOnly(whole), ratedLinks(links)
	}
	batch := tcBatch(whole, links)
	stdin := ""
	if len(batch) > 0 {
		stdin = strings.Join(batch, "\n") + "\n"
	}
	if _, err := dockerInput(ctx, stdin, helperArgs(b.opts.RunID, b.opts.Network, id, image)...); err != nil {
		return fmt.Errorf("tc in %s's network namespace: %s", id[:min(12, len(id))], explainTC(err.Error(), batch))
	}
	return nil
}

func (im *impairments) delaysOrDrops() bool {
	if im.empty() {
		return false
	}
	dd := func(imp backend.Impairment) bool { return imp.Delay > 0 || imp.LossPercent > 0 }
	return dd(im.whole) || slices.ContainsFunc(slices.Collect(maps.Values(im.links)), func(l link) bool { return dd(l.Imp) })
}

// ratedLinks keeps the links with a rate limit, without their delay and loss.
func ratedLinks(links []link) []link {
	var out []link
	for _, l := range links {
		if l.Imp.RateKbit > 0 {
			l.Imp = rateOnly(l.Imp)
			out = append(out, l)
		}
	}
	return out
}

// helperArgs is the `docker run` of a tc helper for container target.
func helperArgs(runID, network, target, image string) []string {
	args := []string{"run", "--rm", "-i", "--network", "container:" + target,
		"--cap-drop", "ALL", "--cap-add", "NET_ADMIN", "--security-opt", "no-new-privileges:true", "--read-only",
		"--user", "0:0", "--label", backend.Label + "=" + runID, "--label", "lnbench.role=" + HelperRole}
	if network != "" {
		args = append(args, "--label", composefile.NetworkLabel+"="+network)
	}
	return append(args, "--entrypoint", "bash", image, "-c", tcScript)
}

// containerIP is a container's address on its (one) compose network.
func containerIP(ctx context.Context, id string) (string, error) {
	out, err := docker(ctx, "inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}", id)
	if err != nil {
		return "", err
	}
	ips := strings.Fields(out)
	if len(ips) != 1 {
		return "", fmt.Errorf("container %s: want one address on the compose network, got %q (is it running?)", id[:min(12, len(id))], out)
	}
	return ips[0], nil
}

// netemProbe adds a netem qdisc to the loopback of a throwaway network
// namespace: it fails exactly when Impair's delay or loss would with netem.
const netemProbe = "tc qdisc add dev lo root netem delay 1ms"

// Mechanism tells, before a run starts anything, how the engine's kernel
// can delay and drop packets: netem when it has sch_netem, else iptables
// with NFQUEUE (MechNFQueue); an error, one line saying what to do, when
// neither works. The probes run in helpers with no network (image: a node
// image, which has iproute2 and iptables from the base).
func Mechanism(ctx context.Context, runID, image string) (string, error) {
	probe := func(script string) error {
		args := helperArgs(runID, "", "none", image)
		args[slices.Index(args, "container:none")] = "none"
		args[len(args)-1] = script
		_, err := docker(ctx, args...)
		return err
	}
	netemErr := probe(netemProbe)
	if netemErr == nil {
		return MechNetem, nil
	}
	nfErr := probe(nfProbe)
	if nfErr == nil {
		return MechNFQueue, nil
	}
	return "", fmt.Errorf("network impairments: %s; without netem, iptables NFQUEUE and statistic failed too (%s)",
		explainTC(netemErr.Error(), []string{"qdisc add dev lo root netem"}), complaint(nfErr))
}

// ImpairMechanism is how delay and loss were applied in this network
// (MechNetem, MechNFQueue; "" before the first), for fault records.
func (b *Backend) ImpairMechanism() string {
	b.faultMu.Lock()
	defer b.faultMu.Unlock()
	return b.mech
}

var exitStatus = regexp.MustCompile(`: exit status \d+: `)

// complaint is the last line a failed command wrote, without the command.
func complaint(err error) string {
	msg := err.Error()
	if loc := exitStatus.FindStringIndex(msg); loc != nil {
		msg = msg[loc[1]:]
	}
	return lines.Last(strings.TrimSpace(msg), 1)
}
