package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lnbench/lnbench/backend"
)

// watchEvery is how often a network's watcher asks its backend about
// deaths, unless the backend paces itself (backend.WatchPacer): a death
// ends the phase within about this much plus one question.
const watchEvery = time.Second

// watcher watches one network for dead actors from before its chain
// starts until its teardown: a node that dies in setup, warm-up or
// measurement ends that phase within seconds, with the death (actor, exit
// code or signal, OOM kill and limit, log tail) as the context's cause,
// instead of leaving a phase to wait out its timeout or payments in flight
// forever. Actors down by an injected fault (expected) are not dead.
type watcher struct {
	ctx     context.Context // every phase of the network runs under it
	parent  context.Context
	network string
	log     io.Writer // nil: say nothing before the error
	cancel  context.CancelCauseFunc
	d       backend.Diagnoser // nil: the backend cannot tell
	expect  atomic.Pointer[expected]
	phase   atomic.Pointer[string]
	done    chan struct{}
	once    sync.Once
}

// watchNetwork starts the watch of be's actors under ctx. It asks the
// backend on every tick (every watchEvery, or the backend's own pace,
// when ticks is nil).
func watchNetwork(ctx context.Context, network string, be backend.Backend, ticks <-chan time.Time, log io.Writer) *watcher {
	w := &watcher{parent: ctx, network: network, done: make(chan struct{}), log: log}
	w.ctx, w.cancel = context.WithCancelCause(ctx)
	d, ok := be.(backend.Diagnoser)
	if !ok {
		return w
	}
	w.d = d
	every := watchEvery
	if p, ok := be.(backend.WatchPacer); ok {
		every = p.WatchEvery()
	}
	go func() {
		if ticks == nil {
			t := time.NewTicker(every)
			defer t.Stop()
			ticks = t.C
		}
		for {
			select {
			case <-w.done:
				return
			case <-w.ctx.Done():
				return
			case <-ticks:
				if dead := w.dead(w.ctx, time.Now()); len(dead) > 0 {
					nd := w.death(&backend.DeadError{Deaths: dead})
					w.say(nd)
					w.cancel(nd)
					return
				}
			}
		}
	}()
	return w
}

// expectFaults tells the watch which actors are down on purpose.
func (w *watcher) expectFaults(e *expected) { w.expect.Store(e) }

// at names the phase the network is in ("setup nodes", casePhase), for
// the error of a death.
func (w *watcher) at(phase string) { w.phase.Store(&phase) }

// stop ends the watch (before teardown stops every actor on purpose).
func (w *watcher) stop() {
	w.once.Do(func() { close(w.done); w.cancel(nil) })
}

// dead asks the backend once, at since, leaving out actors down by an
// injected fault then.
func (w *watcher) dead(ctx context.Context, since time.Time) []backend.Death {
	if w.d == nil {
		return nil
	}
	expect := w.expect.Load()
	var out []backend.Death
	for _, d := range w.d.Dead(ctx) {
		// A fault injected on purpose is no death to stop for.
		if expect == nil || !expect.ignores(d.Actor, since) {
			out = append(out, d)
		}
	}
	return out
}

// explain turns the error a phase ended with into the death behind it:
// the watch's cause when it (or, in a launch pair, an earlier network's
// watch) fired, a backend's own report of a start that failed, or, when
// the phase failed between two ticks, one more question to the backend.
// Other errors, and any after the user interrupted, pass unchanged.
func (w *watcher) explain(err error) error {
	var nd *networkDeath
	if err == nil {
		return nil
	}
	if errors.As(err, &nd) {
		// What the phase said ("alice: confirmed balance 0") is the
		// death's consequence, wrapped around it.
		return nd
	}
	if errors.As(context.Cause(w.ctx), &nd) {
		return nd
	}
	if w.parent.Err() != nil {
		return err
	}
	// One more question: the phase may have failed between two ticks, or
	// a backend's start reported one death while others died with it.
	qctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	dead := w.dead(qctx, time.Now())
	cancel()
	var de *backend.DeadError
	if errors.As(err, &de) {
		for _, d := range dead {
			if !slices.ContainsFunc(de.Deaths, func(x backend.Death) bool { return x.Actor == d.Actor }) {
				de.Deaths = append(de.Deaths, d)
			}
		}
	} else if len(dead) > 0 {
		de = &backend.DeadError{Deaths: dead}
	} else {
		return err
	}
	nd = w.death(de)
	w.say(nd)
	return nd
}

// say tells of the deaths at once, a line each, before the teardown (and
// the error with the log tails) that follows.
func (w *watcher) say(nd *networkDeath) {
	if w.log == nil {
		return
	}
	for _, d := range nd.dead.Deaths {
		fmt.Fprintf(w.log, "%s: %s died: %s; stopping, tearing down\n", nd.where(), d.Actor, d.Cause())
	}
}

func (w *watcher) death(de *backend.DeadError) *networkDeath {
	nd := &networkDeath{network: w.network, dead: de}
	if p := w.phase.Load(); p != nil {
		nd.phase = *p
	}
	return nd
}

// networkDeath is a phase of a network ended by deaths:
// "network launch1, setup nodes: alice died: …".
type networkDeath struct {
	network, phase string
	dead           *backend.DeadError
}

func (e *networkDeath) Error() string { return e.where() + ": " + e.dead.Error() }

// where is "network launch1, setup nodes".
func (e *networkDeath) where() string {
	if e.phase == "" {
		return "network " + e.network
	}
	return "network " + e.network + ", " + e.phase
}

func (e *networkDeath) Unwrap() error { return e.dead }

// casePhase names an iteration's phase for a death's error.
func casePhase(caseID, phase string, i int) string {
	what := "measurement"
	if phase == "warmup" {
		what = "warm-up"
	}
	return fmt.Sprintf("case %s, %s iteration %d", caseID, what, i+1)
}

// SetupWatch is a network's death watch for callers that set a network up
// without Execute (`lnbench up`): the same watcher, ended by Stop.
type SetupWatch struct{ w *watcher }

// WatchSetup starts watching be's actors; name names the network in errors.
func WatchSetup(ctx context.Context, name string, be backend.Backend, log io.Writer) SetupWatch {
	return SetupWatch{watchNetwork(ctx, name, be, nil, log)}
}

// Context is the context to set the network up under: a death ends it.
func (s SetupWatch) Context() context.Context { return s.w.ctx }

// OnPhase is network.Options.OnPhase for the setup.
func (s SetupWatch) OnPhase(name string) { s.w.at("setup " + name) }

// Explain turns the setup's error into the death behind it, if any.
func (s SetupWatch) Explain(err error) error { return s.w.explain(err) }

// Stop ends the watch.
func (s SetupWatch) Stop() { s.w.stop() }
