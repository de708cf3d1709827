package runner

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/internal/lines"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/scenario"
)

// recoveryBound is how long a restarted node may take to answer and have
// every channel active again before its record says it did not.
const recoveryBound = 3 * time.Minute

// faultNet injects a scenario's faults on one network: each case's
// measured iterations get every fault once (see caseFaults).
type faultNet struct {
	inj    backend.FaultInjector
	net    *network.Network
	w      *faults.Writer
	name   string
	specs  []faults.Spec
	actors faults.Actors
	expect *expected
	logf   func(string, ...any)
	// restarted is told of each actor that was restarted (the resource
	// sampler follows its new processes); nil: nobody listens.
	restarted func(ctx context.Context, actor string)
}

func newFaultNet(be backend.Backend, net *network.Network, w *faults.Writer, name string, specs []faults.Spec, logf func(string, ...any)) (*faultNet, error) {
	inj, ok := be.(backend.FaultInjector)
	if !ok {
		return nil, fmt.Errorf("faults: the %s backend injects no faults; use --backend compose or local", be.Name())
	}
	return &faultNet{inj: inj, net: net, w: w, name: name, specs: specs, actors: scenario.FaultActors(net.Topology), expect: newExpected(), logf: logf}, nil
}

// prepare lets a backend that must probe how it impairs do so before
// measuring, so an impairment takes effect sooner after its trigger.
func (fn *faultNet) prepare(ctx context.Context) {
	p, ok := fn.inj.(backend.ImpairmentPreparer)
	if !ok || !slices.ContainsFunc(fn.specs, faults.Spec.Impairs) {
		return
	}
	if err := p.PrepareImpairments(ctx); err != nil {
		fn.logf("faults: probing network impairments: %v", err)
	}
}

// forCase arms the faults for one case's measurement.
func (fn *faultNet) forCase(caseID string) (*caseFaults, error) {
	cf := &caseFaults{fn: fn, caseID: caseID, stop: make(chan struct{}), iter: -1}
	for _, s := range fn.specs {
		t, err := fn.actors.Resolve(s)
		if err != nil {
			return nil, err
		}
		cf.items = append(cf.items, &caseFault{spec: s, target: t})
	}
	return cf, nil
}

// caseFaults fires the faults of one case at their triggers, counted from
// the start of its measured iterations, and writes one record per fault.
type caseFaults struct {
	fn     *faultNet
	caseID string
	items  []*caseFault
	stop   chan struct{} // closed when measurement ended: pauses and impairments end early
	wg     sync.WaitGroup

	mu     sync.Mutex // guards the fields below and each item's fired
	iter   int
	paid   int
	timers []*time.Timer
	ctx    context.Context
}

type caseFault struct {
	spec   faults.Spec
	target faults.Target
	fired  bool
}

// begin is called when the case's measurement starts: offsets count from now.
func (cf *caseFaults) begin(ctx context.Context) {
	cf.mu.Lock()
	defer cf.mu.Unlock()
	cf.ctx = ctx
	for _, it := range cf.items {
		if it.spec.Trigger == faults.AtOffset {
			it := it
			cf.timers = append(cf.timers, time.AfterFunc(it.spec.Offset, func() { cf.fireIf(it) }))
		}
	}
}

// iteration is called before measured iteration k runs; a fault due at k
// has taken effect when it returns.
func (cf *caseFaults) iteration(k int) {
	cf.mu.Lock()
	cf.iter = k
	var due []<-chan struct{}
	for _, it := range cf.items {
		if it.spec.Trigger == faults.AtIteration && it.spec.Iteration == k && !it.fired {
			due = append(due, cf.fireLocked(it))
		}
	}
	cf.mu.Unlock()
	for _, d := range due {
		<-d
	}
}

// payment is called when a measured payment ended, whatever its outcome.
func (cf *caseFaults) payment() {
	cf.mu.Lock()
	defer cf.mu.Unlock()
	cf.paid++
	for _, it := range cf.items {
		if it.spec.Trigger == faults.AfterPayments && cf.paid >= it.spec.Payments && !it.fired {
			cf.fireLocked(it)
		}
	}
}

func (cf *caseFaults) fireIf(it *caseFault) {
	cf.mu.Lock()
	defer cf.mu.Unlock()
	if !it.fired && cf.ctx != nil {
		cf.fireLocked(it)
	}
}

// fireLocked starts injecting; the channel is closed once it took effect.
func (cf *caseFaults) fireLocked(it *caseFault) <-chan struct{} {
	it.fired = true
	injected := make(chan struct{})
	rec := faults.Record{Network: cf.fn.name, Case: cf.caseID, Iteration: cf.iter, Kind: it.spec.Kind, Target: it.target.String(), Spec: it.spec.String(),
		Scheduled: time.Now().UTC()}
	cf.wg.Add(1)
	go func() {
		defer cf.wg.Done()
		cf.inject(cf.ctx, it, rec, injected)
	}()
	return injected
}

// finish ends the case's faults: triggers not reached are recorded as
// such, pauses and impairments still on are removed, a restart in
// progress is waited for. It returns once every record is written.
func (cf *caseFaults) finish() {
	cf.mu.Lock()
	for _, t := range cf.timers {
		t.Stop()
	}
	var missed []*caseFault
	for _, it := range cf.items {
		if !it.fired {
			it.fired = true
			missed = append(missed, it)
		}
	}
	cf.mu.Unlock()
	close(cf.stop)
	cf.wg.Wait()
	for _, it := range missed {
		cf.write(faults.Record{Network: cf.fn.name, Case: cf.caseID, Iteration: -1, Kind: it.spec.Kind, Target: it.target.String(), Spec: it.spec.String(),
			Error: "not injected: the case's measurement ended before its trigger"})
	}
}

func (cf *caseFaults) write(rec faults.Record) {
	if err := cf.fn.w.Write(rec); err != nil {
		cf.fn.logf("faults: %v", err)
	}
}

// inject carries one fault out and writes its record.
func (cf *caseFaults) inject(ctx context.Context, it *caseFault, rec faults.Record, injected chan struct{}) {
	defer func() {
		select {
		case <-injected:
		default:
			close(injected)
		}
		if rec.Error != "" {
			cf.fn.logf("fault %s: %s", rec.Spec, rec.Error)
		}
		cf.write(rec)
	}()
	// Removing a fault must happen even when the run is interrupted.
	bg := context.WithoutCancel(ctx)
	inj, actor, peer := cf.fn.inj, it.target.Actor, it.target.Peer
	s := it.spec
	cf.fn.logf("fault: %s", s)
	switch s.Kind {
	case faults.Kill:
		cf.fn.expect.begin(actor) // for good: the actor stays down
		rec.Start = time.Now().UTC()
		if err := inj.Kill(ctx, actor); err != nil {
			rec.Error = "kill: " + err.Error()
		}
	case faults.Restart:
		cf.fn.expect.begin(actor)
		defer cf.fn.expect.end(actor)
		rec.Start = time.Now().UTC()
		close(injected) // the actor is going down: the fault has begun
		cf.restart(ctx, actor, &rec)
	case faults.Pause:
		cf.fn.expect.begin(actor)
		defer cf.fn.expect.end(actor)
		if err := inj.Pause(ctx, actor); err != nil {
			rec.Error = "pause: " + err.Error()
			return
		}
		rec.Start = time.Now().UTC()
		close(injected)
		cf.hold(ctx, s.For)
		if err := inj.Resume(bg, actor); err != nil {
			rec.Error = "resume: " + err.Error()
			return
		}
		rec.End = time.Now().UTC()
	default: // impairments
		imp := backend.Impairment{Delay: s.Delay, Jitter: s.Jitter, LossPercent: s.LossPercent, RateKbit: s.RateKbit}
		applied, err := inj.Impair(ctx, actor, peer, imp)
		if applied.At.IsZero() {
			rec.Error = s.Kind + ": " + errText(err)
			return
		}
		// The record keeps when the rules were in, not when the trigger
		// fired: the helper takes about a second.
		rec.Start, rec.Mechanism, rec.Direction, rec.Exempt = applied.At.UTC(), applied.Mechanism, applied.Direction, applied.Exempt
		if err != nil {
			rec.Error = s.Kind + ": " + err.Error()
		}
		close(injected)
		cf.hold(ctx, s.For-time.Since(applied.At))
		end, err := inj.Clear(bg, actor, peer)
		if err != nil {
			rec.Error = "clearing " + s.Kind + ": " + err.Error()
		}
		if !end.IsZero() {
			rec.End = end.UTC()
		}
	}
}

func errText(err error) string {
	if err == nil {
		return "the backend applied nothing"
	}
	return err.Error()
}

// hold waits d, or less when the measurement or the run ends first.
func (cf *caseFaults) hold(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-cf.stop:
	case <-ctx.Done():
	}
}

// restart stops and starts the actor, dials a node again where it answers
// now, and waits until it is ready (End) and every channel of it is
// active again (ChannelsActive).
func (cf *caseFaults) restart(ctx context.Context, actor string, rec *faults.Record) {
	rctx, cancel := context.WithTimeout(ctx, recoveryBound)
	defer cancel()
	ep, err := cf.fn.inj.Restart(rctx, actor)
	if err != nil {
		rec.Error = "restart: " + lines.First(err.Error())
		return
	}
	if cf.fn.restarted != nil {
		cf.fn.restarted(rctx, actor)
	}
	if actor == faults.Chain {
		rec.End = time.Now().UTC() // btcd answers: the nodes reconnect on their own
		return
	}
	if err := cf.fn.net.Redial(actor, ep); err != nil {
		rec.Error = err.Error()
		return
	}
	nd := cf.fn.net.Nodes[actor]
	if err := nd.WaitReady(rctx); err != nil {
		rec.Error = "restarted node not ready: " + err.Error()
		return
	}
	rec.End = time.Now().UTC()
	if err := nd.WaitActiveChannels(rctx, cf.fn.net.ChannelCount(actor)); err != nil {
		rec.Error = fmt.Sprintf("channels of the restarted node not all active within %v: %v", recoveryBound, err)
		return
	}
	rec.ChannelsActive = time.Now().UTC()
}

// expected is which actors are down on purpose, for the watchdog.
type expected struct {
	mu    sync.Mutex
	state map[string]*expectation
}

type expectation struct {
	active int       // faults on it now (a kill never ends)
	ended  time.Time // when the last of them ended
}

func newExpected() *expected { return &expected{state: map[string]*expectation{}} }

func (e *expected) begin(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.state[name] == nil {
		e.state[name] = &expectation{}
	}
	e.state[name].active++
}

func (e *expected) end(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x := e.state[name]; x != nil {
		x.active--
		x.ended = time.Now()
	}
}

// ignores tells whether a dead actor, reported by a backend asked at
// since, is down on purpose then: a fault on it was on, or ended after the
// backend was asked.
func (e *expected) ignores(actor string, since time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	x := e.state[actor]
	return x != nil && (x.active > 0 || x.ended.After(since))
}
