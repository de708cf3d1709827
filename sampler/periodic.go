package sampler

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Periodic samples every actor for Window every Every (the original's
// sample-loop.sh: 60 s every 300 s). With Stagger the actors are sampled in
// turn rather than together, since sampling slows the target.
type Periodic struct {
	Targets []Target
	Every   time.Duration
	Window  time.Duration
	Stagger bool
	Store   *Store
	Client  *http.Client
	Log     io.Writer
}

// Run loops until ctx ends; a window cut short by ctx is dropped.
func (p *Periodic) Run(ctx context.Context) error {
	if p.Every < p.Window {
		return fmt.Errorf("sampler: every (%v) must be at least the window (%v)", p.Every, p.Window)
	}
	if p.Client == nil {
		p.Client = &http.Client{}
	}
	tick := time.NewTicker(p.Every)
	defer tick.Stop()
	for {
		p.round(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

func (p *Periodic) round(ctx context.Context) {
	capture := func(t Target) {
		start := time.Now()
		prof, err := Fetch(ctx, p.Client, t, p.Window)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			_, err = p.Store.Save(t.Actor, "periodic", start, time.Now(), prof)
		}
		if err != nil && p.Log != nil {
			fmt.Fprintf(p.Log, "sampler: %v\n", err)
		}
	}
	if p.Stagger {
		for _, t := range p.Targets {
			if ctx.Err() != nil {
				return
			}
			capture(t)
		}
		return
	}
	var wg sync.WaitGroup
	for _, t := range p.Targets {
		wg.Add(1)
		go func(t Target) { defer wg.Done(); capture(t) }(t)
	}
	wg.Wait()
}
