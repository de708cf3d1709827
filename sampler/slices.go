package sampler

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/google/pprof/profile"
)

// Slicer profiles actors continuously in back-to-back slices, so a window
// can be cut to any interval afterwards: Go's pprof endpoint takes a
// duration up front, in whole seconds, and cannot be stopped at an event
// (a cancelled request loses its profile), nor can a second CPU profile run
// beside it, so a measured iteration's window is the merge of the slices
// whose middle lies inside it: each end of the window is off the
// iteration's by up to half a slice (1 s by default). The index records the
// iteration with each window (traces.Window.Want) and reports print the
// misalignment, rather than pretend the window is the iteration.
type Slicer struct {
	Targets []Target
	Slice   time.Duration
	Client  *http.Client
	Log     io.Writer
	// Now stamps the slices (time.Now when nil).
	Now func() time.Time

	mu     sync.Mutex
	slices map[string][]slice
	// added is closed and replaced whenever a slice arrives.
	added chan struct{}
}

// NewSlicer prepares a slicer; call Run in a goroutine.
func NewSlicer(targets []Target, sliceLen time.Duration, client *http.Client, log io.Writer) *Slicer {
	return &Slicer{Targets: targets, Slice: sliceLen, Client: client, Log: log,
		slices: map[string][]slice{}, added: make(chan struct{})}
}

type slice struct {
	start, end time.Time
	p          *profile.Profile
}

// Run collects slices until ctx ends.
func (s *Slicer) Run(ctx context.Context) {
	if s.Slice <= 0 {
		s.Slice = time.Second
	}
	if s.Client == nil {
		s.Client = &http.Client{}
	}
	now := s.Now
	if now == nil {
		now = time.Now
	}
	var wg sync.WaitGroup
	for _, t := range s.Targets {
		wg.Add(1)
		go func(t Target) {
			defer wg.Done()
			for ctx.Err() == nil {
				start := now()
				p, err := Fetch(ctx, s.Client, t, s.Slice)
				if err != nil {
					if ctx.Err() == nil && s.Log != nil {
						fmt.Fprintf(s.Log, "sampler: %v\n", err)
					}
					if ctx.Err() == nil {
						time.Sleep(s.Slice) // endpoint down: retry at slice pace
					}
					continue
				}
				s.mu.Lock()
				s.slices[t.Actor] = append(s.slices[t.Actor], slice{start: start, end: now(), p: p})
				close(s.added)
				s.added = make(chan struct{})
				s.mu.Unlock()
			}
		}(t)
	}
	wg.Wait()
}

// WaitCovered blocks until the actor has a slice ending after t (so every
// slice that overlaps an interval ending at t has arrived), or ctx ends.
func (s *Slicer) WaitCovered(ctx context.Context, actor string, t time.Time) error {
	for {
		s.mu.Lock()
		sl := s.slices[actor]
		done := len(sl) > 0 && !sl[len(sl)-1].end.Before(t)
		added := s.added
		s.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-added:
		}
	}
}

// Cut merges, per actor, the slices whose middle lies in [from, to] and
// forgets slices that end before to. It returns the covered interval.
func (s *Slicer) Cut(actor string, from, to time.Time) (*profile.Profile, time.Time, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var parts []*profile.Profile
	var first, last time.Time
	var keep []slice
	for _, sl := range s.slices[actor] {
		mid := sl.start.Add(sl.end.Sub(sl.start) / 2)
		if !mid.Before(from) && !mid.After(to) {
			parts = append(parts, sl.p)
			if first.IsZero() {
				first = sl.start
			}
			last = sl.end
		}
		if sl.end.After(to) {
			keep = append(keep, sl)
		}
	}
	s.slices[actor] = keep
	if len(parts) == 0 {
		return nil, from, to, fmt.Errorf("sampler: no %s profile slice inside %s–%s (window shorter than a slice?)", actor, from.Format("15:04:05.000"), to.Format("15:04:05.000"))
	}
	p, err := profile.Merge(parts)
	return p, first, last, err
}
