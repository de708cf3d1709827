package perfprof

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/pprof/profile"
)

// Profiler serves profiles of a process tree from one perf session kept
// running while profiles are asked for (see session), started on the first
// and stopped after Linger without one. Profiles are taken one at a time.
type Profiler struct {
	Recorder
	Linger time.Duration // 0 is 5 s

	mu   sync.Mutex
	s    *session
	idle *time.Timer
	gen  int // which arm's timer may stop the session
}

// tile is how soon after the previous profile was handed back a request
// must come for its profile to start where that one ended (back-to-back
// requests miss nothing, however long perf script took); later ones start
// at the request.
const tile = 2.0 // seconds

// Profile profiles root and its descendants for d. Processes forked
// meanwhile are followed (perf inherits its events into children).
func (p *Profiler) Profile(ctx context.Context, root int, d time.Duration) (*profile.Profile, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gen++ // a timer firing now must not stop the session
	if p.idle != nil {
		p.idle.Stop()
	}
	defer p.arm()
	t0 := bootClock()
	tree, err := Tree(p.procRoot(), root)
	if err != nil {
		p.stop()
		return nil, err
	}
	names := p.names(tree, nil)
	if p.s != nil && (p.s.root != root || p.s.dead() || p.s.missing(p.procRoot(), tree)) {
		p.stop()
	}
	if p.s == nil {
		if p.s, err = p.start(root); err != nil {
			return nil, err
		}
	}
	s := p.s
	// The profile starts where the previous one ended when the client came
	// straight back for it, else at the request, or when a new perf began
	// sampling.
	from, reapedFrom := s.lastCut, s.reaped
	if t0-s.served > tile {
		from = t0 // perf ran idle since the last profile: not this one's time
		reapedFrom = readReaped(p.procRoot(), tree)
	}
	wait := time.Duration((max(t0, from)+d.Seconds()-bootClock())*1e9) * time.Nanosecond
	select {
	case <-ctx.Done():
		return nil, ctx.Err() // perf keeps running: the next request tiles on
	case <-time.After(wait):
	case <-s.exited: // every process gone: its last file is the profile
	}
	path, at, err := s.cut()
	if err != nil {
		p.stop()
		return nil, err
	}
	defer os.Remove(path)
	s.lastCut = at
	// The tree at the cut, and what its processes' waited-for children
	// used by then, read before perf script takes its time.
	treeAt, treeErr := Tree(p.procRoot(), root)
	s.reaped = readReaped(p.procRoot(), treeAt)
	perf, err := p.perf()
	if err != nil {
		return nil, err
	}
	sc, err := p.script(ctx, perf, path, s.kallsyms)
	if err != nil {
		return nil, err
	}
	kept := sc.Samples[:0]
	for _, x := range sc.Samples {
		if x.Time >= from {
			kept = append(kept, x)
		}
	}
	if treeErr == nil {
		names = p.names(treeAt, names) // processes started meanwhile
		alive := make(map[int]bool, len(treeAt))
		for _, pid := range treeAt {
			alive[pid] = true
		}
		kept = append(kept, unsampledChildren(kept, sc.Parents, alive, reapedFrom, s.reaped, int64(time.Second)/int64(p.freq()), at,
			func(pid int) string { return names[pid] })...)
	}
	name := func(pid int, comm string) string {
		if n := names[pid]; n != "" {
			return n
		}
		if strings.HasPrefix(comm, ":") {
			// perf saw no name (":PID"): a child that came and went, e.g.
			// between fork and exec; one root for all rather than one each.
			return "[unnamed process]"
		}
		return comm // exited during the profile, unseen at either end
	}
	start := time.Now().Add(-time.Duration((bootClock() - from) * 1e9))
	prof := Convert(kept, name, p.freq(), start, time.Duration((at-from)*1e9))
	if exe, err := os.Readlink(filepath.Join(p.procRoot(), strconv.Itoa(root), "exe")); err == nil {
		mainFirst(prof, exe)
	}
	s.served = bootClock()
	return prof, nil
}

// start attaches perf to the tree. Young processes are left out: perf
// refuses the whole list if one exits before it attaches (0.3 s on a busy
// machine), and lightningd's bcli plugin runs a short bitcoin-cli every few
// seconds; those forked after perf attaches are followed anyway. A refusal
// lists the tree again with a longer minimum age, then the root alone.
func (p *Profiler) start(root int) (*session, error) {
	perf, err := p.perf()
	if err != nil {
		return nil, err
	}
	mode, _, err := CallGraphFor(p.CallGraph, filepath.Join(p.procRoot(), strconv.Itoa(root), "exe"))
	if err != nil {
		return nil, err
	}
	for _, minAge := range []time.Duration{time.Second, 5 * time.Second, 1 << 62} {
		tree, err := Tree(p.procRoot(), root)
		if err != nil {
			return nil, err
		}
		s, err := startSession(p.Recorder, perf, mode, root, OlderThan(p.procRoot(), tree, minAge))
		if err == nil {
			s.reaped = readReaped(p.procRoot(), tree) // as sampling began (lastCut)
		}
		if !errors.Is(err, errGone) {
			return s, err
		}
	}
	return nil, errGone
}

// names maps the tree's PIDs to process names, on top of earlier ones.
func (p *Profiler) names(tree []int, into map[int]string) map[int]string {
	if into == nil {
		into = map[int]string{}
	}
	for _, pid := range tree {
		if _, ok := into[pid]; !ok {
			into[pid] = ProcessName(p.procRoot(), pid)
		}
	}
	return into
}

// arm stops the session after Linger without a profile.
func (p *Profiler) arm() {
	linger := p.Linger
	if linger <= 0 {
		linger = 5 * time.Second
	}
	p.gen++
	gen := p.gen
	p.idle = time.AfterFunc(linger, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if gen == p.gen { // no profile since
			p.stop()
		}
	})
}

func (p *Profiler) stop() {
	if p.s != nil {
		p.s.stop()
		p.s = nil
	}
}

// Close stops perf.
func (p *Profiler) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.idle != nil {
		p.idle.Stop()
	}
	p.stop()
}
