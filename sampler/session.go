package sampler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/lnbench/lnbench/record/traces"
	"github.com/lnbench/lnbench/scenario"
)

// Config is one sampling session over a network's actors.
type Config struct {
	Targets []Target
	Mode    string // scenario.SamplePeriodic or scenario.SampleIteration
	Every   time.Duration
	Window  time.Duration
	Slice   time.Duration
	Stagger bool
	Store   *Store
	Client  *http.Client
	Log     io.Writer
	// Now stamps the slices (time.Now when nil; tests inject a clock).
	Now func() time.Time
}

// Session runs the sampling of one network until Stop.
type Session struct {
	cfg    Config
	slicer *Slicer
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Controller is what the harness needs from a sampler, wherever it runs
// (in-process for local nodes, a sidecar container for compose).
type Controller interface {
	// Iteration stores one window per actor covering [from, to].
	Iteration(ctx context.Context, label string, from, to time.Time) error
	Stop()
}

// Start begins sampling in the background.
func Start(cfg Config) (*Session, error) {
	if cfg.Client == nil {
		cfg.Client = &http.Client{}
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Session{cfg: cfg, cancel: cancel}
	switch cfg.Mode {
	case scenario.SamplePeriodic:
		p := &Periodic{Targets: cfg.Targets, Every: cfg.Every, Window: cfg.Window, Stagger: cfg.Stagger, Store: cfg.Store, Client: cfg.Client, Log: cfg.Log}
		if cfg.Every < cfg.Window {
			cancel()
			return nil, fmt.Errorf("sampler: every (%v) must be at least the window (%v)", cfg.Every, cfg.Window)
		}
		s.wg.Add(1)
		go func() { defer s.wg.Done(); _ = p.Run(ctx) }()
	case scenario.SampleIteration:
		s.slicer = NewSlicer(cfg.Targets, cfg.Slice, cfg.Client, cfg.Log)
		s.slicer.Now = cfg.Now
		s.wg.Add(1)
		go func() { defer s.wg.Done(); s.slicer.Run(ctx) }()
	default:
		cancel()
		return nil, fmt.Errorf("sampler: mode %q: use periodic or iteration", cfg.Mode)
	}
	return s, nil
}

// Iteration cuts one window per actor from the slices (iteration mode);
// in periodic mode it does nothing.
func (s *Session) Iteration(ctx context.Context, label string, from, to time.Time) error {
	if s.slicer == nil {
		return nil
	}
	var errs []error
	for _, t := range s.cfg.Targets {
		wctx, cancel := context.WithTimeout(ctx, 3*s.cfg.Slice+10*time.Second)
		err := s.slicer.WaitCovered(wctx, t.Actor, to)
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("sampler: %s: no slice after the iteration end: %v", t.Actor, err))
			continue
		}
		p, first, last, err := s.slicer.Cut(t.Actor, from, to)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if _, err := s.cfg.Store.SaveFor(t.Actor, label, first, last, &traces.Interval{Start: from, End: to}, p); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Stop ends sampling and waits for the background work.
func (s *Session) Stop() {
	s.cancel()
	s.wg.Wait()
}
