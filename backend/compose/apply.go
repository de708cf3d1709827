package compose

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lnbench/lnbench/backend"
)

// applyTC replaces the container's impairments with im, in one helper
// run in its network namespace: its qdiscs and, when delays are the
// NFQUEUE delayer's, its iptables chain, with new delayers started before
// and the old ones drained after. The node keeps no capability; helpers
// have NET_ADMIN only and carry the run's label. Their image is the
// target's own (the project's Debian base with iproute2 and iptables:
// nothing is pulled). It returns when the new rules were in (the helper's
// clock) and the exempt traffic's labels. Callers hold faultMu.
func (b *Backend) applyTC(ctx context.Context, id string, im *impairments) (at time.Time, labels []string, err error) {
	image, err := b.imageOf(ctx, id)
	if err != nil {
		return time.Time{}, nil, err
	}
	if !b.probed && im.delaysOrDrops() {
		b.mech, b.probed = Probe(ctx, b.opts.RunID, image), true
	}
	whole, links := backend.Impairment{}, []link(nil)
	if !im.empty() {
		whole, links = im.whole, slices.Collect(maps.Values(im.links))
	}
	for _, imp := range append([]backend.Impairment{whole}, linkImps(links)...) {
		if err := b.mech.Check(imp); err != nil {
			return time.Time{}, nil, err
		}
	}
	exempt, labels, err := b.exempt(ctx, id)
	if err != nil {
		return time.Time{}, nil, err
	}
	batch := tcBatch(whole, links, exempt, b.mech.Delay == MechNetem)
	args := helperArgs(b.opts.RunID, b.opts.Network, id, image)
	args[len(args)-1] = tcScript + " && " + clockScript
	var old []string
	var lifted time.Time
	if b.mech.Delay == MechNFQueue {
		var name string
		var started, toLift []string
		if name, err = b.serviceOf(ctx, id); err != nil {
			return time.Time{}, nil, err
		}
		rules, ds := nfRules(whole, links, exempt, b.nextQueue)
		b.nextQueue += len(ds)
		if old, err = b.delayersOf(ctx, name); err != nil {
			return time.Time{}, nil, err
		}
		if started, err = b.startDelayers(ctx, name, id, image, ds); err != nil {
			return time.Time{}, nil, err
		}
		defer func() {
			if at.IsZero() { // the new rules are not in: their delayers go
				b.removeContainers(context.WithoutCancel(ctx), started)
			}
		}()
		// Delays that end are lifted before their rules go; delays that go
		// on switch to new delayers, which hold what comes from now on.
		_, toLift = b.splitDelayers(old, ds)
		if lifted, err = b.liftDelayers(ctx, toLift); err != nil {
			return time.Time{}, nil, err
		}
		args = slices.Insert(args, slices.Index(args, "--entrypoint"), "-e", nfEnv+"="+rules)
		args[len(args)-1] = tcScript + " && " + nfScript + " && " + clockScript
	}
	stdin := ""
	if len(batch) > 0 {
		stdin = strings.Join(batch, "\n") + "\n"
	}
	out, err := dockerInput(ctx, stdin, args...)
	if err != nil {
		return time.Time{}, nil, fmt.Errorf("tc and iptables in %s's network namespace: %s", id[:min(12, len(id))], explainTC(err.Error(), batch))
	}
	at = helperClock(out)
	if !lifted.IsZero() && lifted.Before(at) {
		b.lastLift = lifted // a delay ended when it was lifted, before its rules went
	}
	// Old queues are fed no more: their delayers release what they hold.
	return at, labels, b.drainDelayers(ctx, old)
}

// clockScript prints when the helper's rules were in: the helper shares
// the host's clock.
const clockScript = "date +%s.%N"

// helperClock reads clockScript's output (the last line), or now when
// there is none.
func helperClock(out string) time.Time {
	fields := strings.Fields(out)
	if len(fields) > 0 {
		sec, frac, ok := strings.Cut(fields[len(fields)-1], ".")
		s, err1 := strconv.ParseInt(sec, 10, 64)
		ns, err2 := strconv.ParseInt(frac, 10, 64)
		if ok && err1 == nil && err2 == nil && len(frac) == 9 {
			return time.Unix(s, ns).UTC()
		}
	}
	return time.Now().UTC()
}

func linkImps(links []link) []backend.Impairment {
	var out []backend.Impairment
	for _, l := range links {
		out = append(out, l.Imp)
	}
	return out
}

func (im *impairments) delaysOrDrops() bool {
	if im.empty() {
		return false
	}
	dd := func(imp backend.Impairment) bool { return imp.Delay > 0 || imp.LossPercent > 0 }
	return dd(im.whole) || slices.ContainsFunc(slices.Collect(maps.Values(im.links)), func(l link) bool { return dd(l.Imp) })
}
