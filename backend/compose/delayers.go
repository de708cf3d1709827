package compose

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/netdelay"
)

// boundWithin is how long a new delayer may take to hold its queue.
const boundWithin = 10 * time.Second

// startDelayers runs one detached delayer per d in container id's network
// namespace and waits until each holds its queue, so the rules that feed
// the queues delay from the moment they are in. It returns their ids.
func (b *Backend) startDelayers(ctx context.Context, name, id, image string, ds []delayer) ([]string, error) {
	if len(ds) > 0 && b.opts.Tool == "" {
		return nil, fmt.Errorf("a delay without netem needs the static lnbench in the helper: none is mounted (build lnbench with CGO_ENABLED=0)")
	}
	var ids []string
	for _, d := range ds {
		cid, err := docker(ctx, delayerArgs(b.opts.RunID, b.opts.Network, name, id, image, b.opts.Tool, d)...)
		if err != nil {
			b.removeContainers(ctx, ids)
			return nil, fmt.Errorf("starting the delayer of queue %d in %s's network namespace: %s", d.Queue, name, complaint(err))
		}
		ids = append(ids, cid)
		b.delayerFrom[cid] = d.From
	}
	for _, cid := range ids {
		if err := waitBound(ctx, cid); err != nil {
			b.removeContainers(ctx, ids)
			return nil, fmt.Errorf("the delayer in %s's network namespace: %w", name, err)
		}
	}
	return ids, nil
}

// waitBound waits for the delayer's line saying it holds its queue.
func waitBound(ctx context.Context, cid string) error {
	deadline := time.Now().Add(boundWithin)
	for {
		out, err := delayerLog(ctx, cid)
		if err == nil && slices.ContainsFunc(strings.Split(out, "\n"), netdelay.IsBound) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("it did not hold its queue within %v: %s", boundWithin, strings.TrimSpace(out))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// delayerLog is a delayer's output: docker logs, stderr (where it writes) included.
func delayerLog(ctx context.Context, id string) (string, error) {
	out, err := exec.CommandContext(ctx, "docker", "logs", id).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("docker logs %s: %v: %s", id, err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// delayersOf lists an actor's delayers ("": every actor's in this network).
func (b *Backend) delayersOf(ctx context.Context, name string) ([]string, error) {
	out, err := docker(ctx, append([]string{"ps", "-aq"}, filterArgs(b.delayerFilters(name))...)...)
	return strings.Fields(out), err
}

func (b *Backend) delayerFilters(name string) []string {
	filters := []string{runFilter(b.opts.RunID), "label=lnbench.role=" + DelayerRole}
	if b.opts.Network != "" {
		filters = append(filters, "label="+composefile.NetworkLabel+"="+b.opts.Network)
	}
	if name != "" {
		filters = append(filters, "label="+delayerOf+"="+name)
	}
	return filters
}

// liftDelayers ends the delay of delayers whose packets the new rules will
// not delay: on SIGTERM each lets new packets pass as soon as those it
// holds have left, on schedule, and says so (lifted). Only then may their
// rules go: packets undelayed at once would overtake the held ones, and
// TCP takes reordering for loss. It returns the earliest time a delay was
// lifted (zero with no delayers).
func (b *Backend) liftDelayers(ctx context.Context, ids []string) (time.Time, error) {
	if len(ids) == 0 {
		return time.Time{}, nil
	}
	if _, err := docker(ctx, append([]string{"kill", "-s", "TERM"}, ids...)...); err != nil {
		return time.Time{}, fmt.Errorf("lifting delays: %s", complaint(err))
	}
	var first time.Time
	for _, id := range ids {
		deadline := time.Now().Add(boundWithin)
		for {
			out, err := delayerLog(ctx, id)
			if at, ok := netdelay.Lifted(out); ok {
				if first.IsZero() || at.Before(first) {
					first = at
				}
				break
			}
			if err != nil || time.Now().After(deadline) {
				return first, fmt.Errorf("delayer %s did not lift its delay within %v: %s", id[:min(12, len(id))], boundWithin, logOrErr(out, err))
			}
			select {
			case <-ctx.Done():
				return first, ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	return first.UTC(), nil
}

// splitDelayers sorts an actor's running delayers into those whose
// packets the new rules delay again (next: their From) and the rest.
func (b *Backend) splitDelayers(old []string, next []delayer) (kept, lifted []string) {
	for _, id := range old {
		from, known := b.delayerFrom[id]
		if known && slices.ContainsFunc(next, func(d delayer) bool { return d.From == from }) {
			kept = append(kept, id)
		} else {
			lifted = append(lifted, id)
		}
	}
	return kept, lifted
}

// drainDelayers stops delayers whose queues no rule feeds any more: on
// SIGTERM each releases what it still holds, on schedule, then exits with
// its count. A held packet it could not release is an error.
func (b *Backend) drainDelayers(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	defer b.removeContainers(context.WithoutCancel(ctx), ids)
	for _, id := range ids {
		delete(b.delayerFrom, id)
	}
	if _, err := docker(ctx, append([]string{"stop", "-t", "40"}, ids...)...); err != nil {
		return fmt.Errorf("stopping delayers: %s", complaint(err))
	}
	var lost []string
	for _, id := range ids {
		out, err := delayerLog(ctx, id)
		s, ok := netdelay.ParseSummary(out)
		switch {
		case err != nil || !ok:
			lost = append(lost, fmt.Sprintf("delayer %s wrote no count: %s", id[:min(12, len(id))], logOrErr(out, err)))
		case s.Lost() > 0:
			lost = append(lost, fmt.Sprintf("queue %d released %d of the %d packets it held", s.Queue, s.Released, s.Held))
		case s.Bypassed > 0:
			lost = append(lost, fmt.Sprintf("queue %d let %d packets through undelayed (its socket was full), out of order", s.Queue, s.Bypassed))
		}
	}
	if len(lost) > 0 {
		return fmt.Errorf("delayed packets lost or overtaken: %s", strings.Join(lost, "; "))
	}
	return nil
}

func logOrErr(out string, err error) string {
	if err != nil {
		return complaint(err)
	}
	return strings.TrimSpace(out)
}

// removeDelayers removes an actor's delayers at once ("": every actor's
// in this network), for a kill and teardown: what they hold goes too.
func (b *Backend) removeDelayers(ctx context.Context, name string) error {
	_, err := remove(ctx, b.delayerFilters(name)...)
	return err
}

func (b *Backend) removeContainers(ctx context.Context, ids []string) {
	if len(ids) > 0 {
		_, _ = docker(ctx, append([]string{"rm", "-f", "-v"}, ids...)...)
	}
}

// serviceOf is the compose service of one of this backend's containers.
func (b *Backend) serviceOf(ctx context.Context, id string) (string, error) {
	c, err := b.inspect1(ctx, id)
	if err != nil || c.Config == nil {
		return "", err
	}
	return c.Config.Labels["com.docker.compose.service"], nil
}

// delayerArgs is the `docker run` of a detached delayer for d in
// container target's network namespace, running the mounted static lnbench.
func delayerArgs(runID, network, name, target, image, tool string, d delayer) []string {
	args := helperArgs(runID, network, target, image)
	// Not interactive, and kept once it exits until drainDelayers read its count.
	args = slices.Replace(args, 0, 3, "run", "-d")
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
