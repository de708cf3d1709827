package netdelay

import (
	"context"
	"sync/atomic"
	"time"
)

// verdicter is the part of an NFQUEUE the delay line uses (faked in tests).
type verdicter interface {
	SetVerdict(id uint32, verdict int) error
}

type held struct {
	id uint32
	at time.Time
}

// line holds packets until their release times (Schedule: never
// decreasing, so one FIFO worker releases them in order) and counts what
// it held and released.
type line struct {
	q        verdicter
	accept   int
	s        *Schedule
	fifo     chan held
	onErr    func(error)
	held     atomic.Int64
	released atomic.Int64 // ACCEPT verdicts given
	done     atomic.Int64 // verdicts tried, failed ones included
	lastIn   atomic.Int64 // unix ns of the last packet's arrival
	lifted   atomic.Bool  // the delay is over: new packets pass after those held
}

func newLine(q verdicter, accept int, s *Schedule, onErr func(error)) *line {
	return &line{q: q, accept: accept, s: s, fifo: make(chan held, maxQueue), onErr: onErr}
}

// add holds a packet that arrived at now.
func (l *line) add(id uint32, now time.Time) {
	l.held.Add(1)
	l.lastIn.Store(now.UnixNano())
	var at time.Time
	if l.lifted.Load() {
		at = l.s.Undelayed(now)
	} else {
		at = l.s.Release(now)
	}
	l.fifo <- held{id: id, at: at}
}

// lift ends the delay: packets arriving from now on leave as soon as
// every packet held before them has. It returns how many were held so far.
func (l *line) lift() int64 {
	l.lifted.Store(true)
	return l.held.Load()
}

// waitDone waits until n packets got their verdict, or ctx ends.
func (l *line) waitDone(ctx context.Context, n int64) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for l.done.Load() < n {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// run releases held packets at their times until stop is closed.
func (l *line) run(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case p := <-l.fifo:
			if w := time.Until(p.at); w > 0 {
				time.Sleep(w)
			}
			if err := l.q.SetVerdict(p.id, l.accept); err != nil {
				l.onErr(err) // one lost verdict drops one packet; keep delaying the rest
			} else {
				l.released.Add(1)
			}
			l.done.Add(1)
		}
	}
}

// drain waits until every packet held so far was released and none
// arrived for quiet (the rule feeding the queue is gone by then), or
// until ctx ends. Clearing a delay thus releases what it holds, on
// schedule, instead of dropping it with the queue.
func (l *line) drain(ctx context.Context, quiet time.Duration) {
	tick := time.NewTicker(quiet / 4)
	defer tick.Stop()
	for {
		idle := time.Since(time.Unix(0, l.lastIn.Load())) >= quiet
		if idle && l.done.Load() == l.held.Load() {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// summary counts what the line held and released.
func (l *line) summary(queue uint16) Summary {
	return Summary{Queue: int(queue), Held: int(l.held.Load()), Released: int(l.released.Load())}
}
