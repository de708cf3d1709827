package compose

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

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
		return b.removeDelayers(ctx, name) // a dead node's packets need no release
	}
	return nil
}

// Pause freezes every process of the actor (the cgroup freezer), through
// the engine's API: an interleaved comparison pauses each waiting actor at
// every iteration.
func (b *Backend) Pause(ctx context.Context, name string) error {
	return b.onContainer(ctx, "pause", name, func(id string) error {
		return retryFreeze(ctx, freezeRetryWait, func() error { return b.engine(ctx).Pause(ctx, id) })
	})
}

// freezeAttempts and freezeRetryWait: runc gives up on a freeze ("unable
// to freeze") when a process of the container does not reach the frozen
// state within its own wait, as one in uninterruptible sleep mid-sync
// may not; it thaws the container again, so the pause can be retried. Seen
// once on CLN's bob in round 7 of an interleaved run, which it ended.
const (
	freezeAttempts  = 5
	freezeRetryWait = 200 * time.Millisecond
)

// retryFreeze runs pause until it succeeds, fails otherwise than runc's
// "unable to freeze", or has been tried freezeAttempts times.
func retryFreeze(ctx context.Context, wait time.Duration, pause func() error) error {
	var err error
	for range freezeAttempts {
		if err = pause(); err == nil || !strings.Contains(err.Error(), "unable to freeze") {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
	return fmt.Errorf("%w (tried %d times)", err, freezeAttempts)
}

// Resume thaws a paused actor.
func (b *Backend) Resume(ctx context.Context, name string) error {
	return b.onContainer(ctx, "resume", name, func(id string) error { return b.engine(ctx).Unpause(ctx, id) })
}

// onContainer calls do with the actor's container, its error named by
// the verb and the actor.
func (b *Backend) onContainer(ctx context.Context, verb, name string, do func(id string) error) error {
	id, err := b.serviceContainer(ctx, verb, name)
	if err != nil {
		return err
	}
	if err := do(id); err != nil {
		return fmt.Errorf("%s %s: %w", verb, name, err)
	}
	return nil
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
	if c, err := b.inspect1(ctx, id); err == nil && c.State != nil && c.State.Status == "paused" {
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

// Impair applies imp to the actor's traffic: all of it when peer is "",
// else only its traffic with peer's address on the compose network. It
// adds to the actor's other impairments (one per peer, one for the whole
// interface); a second one for the same target replaces the first. The
// harness's own connections are exempt (see exempt).
func (b *Backend) Impair(ctx context.Context, name, peer string, imp backend.Impairment) (backend.Applied, error) {
	if err := checkImpairment(imp); err != nil {
		return backend.Applied{}, fmt.Errorf("impair %s: %w", target(name, peer), err)
	}
	id, err := b.serviceContainer(ctx, "impair", name)
	if err != nil {
		return backend.Applied{}, err
	}
	var l link
	if peer != "" {
		if peer == name {
			return backend.Applied{}, fmt.Errorf("impair %s: a link needs two different actors", target(name, peer))
		}
		pid, err := b.serviceContainer(ctx, "impair "+name+" towards", peer)
		if err != nil {
			return backend.Applied{}, err
		}
		ip, err := b.containerIP(ctx, pid)
		if err != nil {
			return backend.Applied{}, fmt.Errorf("impair %s: %w", target(name, peer), err)
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
	at, exempt, err := b.applyTC(ctx, id, next)
	if at.IsZero() {
		// Leave what was there before, not half a tree.
		_, _, _ = b.applyTC(ctx, id, prev)
		return backend.Applied{}, fmt.Errorf("impair %s: %w", target(name, peer), err)
	}
	b.setImpaired(name, next) // in place, even if draining the old delayers failed
	mech, dir := b.mech.Describe(imp)
	applied := backend.Applied{At: at, Mechanism: mech, Direction: dir, Exempt: exempt}
	if err != nil {
		return applied, fmt.Errorf("impair %s: %w", target(name, peer), err)
	}
	return applied, nil
}

// Clear removes the impairment Impair put on the same target; the actor's
// others stay. It returns when the removal took effect; packets a delay
// held are released on schedule, not dropped.
func (b *Backend) Clear(ctx context.Context, name, peer string) (time.Time, error) {
	id, err := b.serviceContainer(ctx, "clear", name)
	if err != nil {
		return time.Time{}, err
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
	b.lastLift = time.Time{}
	at, _, err := b.applyTC(ctx, id, next)
	if !at.IsZero() {
		b.setImpaired(name, next)
	}
	if !b.lastLift.IsZero() {
		at = b.lastLift
	}
	if err != nil {
		return at, fmt.Errorf("clear %s: %w", target(name, peer), err)
	}
	return at, nil
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
			if ip, err = b.containerIP(ctx, pid); err != nil {
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
		if _, _, err := b.applyTC(ctx, id, im); err != nil {
			return fmt.Errorf("%s: %w", actor, err)
		}
	}
	return nil
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
func (b *Backend) containerIP(ctx context.Context, id string) (string, error) {
	c, err := b.inspect1(ctx, id)
	if err != nil {
		return "", err
	}
	ips := addrsOf(c)
	if len(ips) != 1 {
		return "", fmt.Errorf("container %s: want one address on the compose network, got %q (is it running?)", id[:min(12, len(id))], ips)
	}
	return ips[0], nil
}

// ImpairMechanism is how delays are applied in this network (MechNetem,
// MechNFQueue; "" before the first delay or loss).
func (b *Backend) ImpairMechanism() string {
	b.faultMu.Lock()
	defer b.faultMu.Unlock()
	return b.mech.Delay
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
