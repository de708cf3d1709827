package runner

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/internal/lines"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage"
	"github.com/lnbench/lnbench/usage/collect"
	"github.com/lnbench/lnbench/usage/syncs"
)

// resourceSampler writes one usage.Sample per actor (every service the
// backend lists, and the harness itself) about once a second while a case
// with ResourceSampling=on runs, plus one at each iteration's start and end
// so that per-iteration differences are exact. Syncs are counted from the
// case's start; data dir sizes are taken at its start and end.
type resourceSampler struct {
	w       *usage.Writer
	lister  backend.ActorLister // nil: the harness alone
	network string
	log     io.Writer
	note    func(string) // one line into the manifest's warnings

	mu       sync.Mutex // guards the fields below
	on       bool
	caseID   string
	phase    string
	iter     int
	actors   []backend.Actor
	counters map[string]*syncs.Counter
	// syncBase is what an actor's earlier counters counted before it was
	// restarted: its syncs stay cumulative over the case.
	syncBase map[string]int64
	failed   map[string]bool // actors whose read error was logged

	stopOnce sync.Once
	stopCh   chan struct{}
	done     chan struct{}
}

// sampleEvery is the sampling period.
const sampleEvery = time.Second

func newResourceSampler(path, network string, be backend.Backend, log io.Writer, note func(string)) (*resourceSampler, error) {
	w, err := usage.Create(path)
	if err != nil {
		return nil, err
	}
	r := &resourceSampler{w: w, network: network, log: log, note: note, failed: map[string]bool{},
		stopCh: make(chan struct{}), done: make(chan struct{})}
	r.lister, _ = be.(backend.ActorLister)
	go r.loop()
	return r, nil
}

func (r *resourceSampler) loop() {
	defer close(r.done)
	t := time.NewTicker(sampleEvery)
	defer t.Stop()
	for {
		select {
		case <-r.stopCh:
			return
		case <-t.C:
			r.snapshot(context.Background(), false)
		}
	}
}

// startCase lists the actors, attaches the sync counters and writes the
// first samples (with data dir sizes), when the case samples at all.
func (r *resourceSampler) startCase(ctx context.Context, c scenario.Case) {
	r.endCase(ctx) // a case that failed midway never ended
	if !c.ResourceSampling() {
		return
	}
	actors := []backend.Actor{}
	if r.lister != nil {
		var err error
		if actors, err = r.lister.Actors(ctx); err != nil {
			r.note(fmt.Sprintf("resources: listing the actors of %s: %s", r.network, lines.First(err.Error())))
		}
	}
	actors = append(actors, backend.Actor{Name: usage.RoleHarness, Role: usage.RoleHarness, PID: os.Getpid()})
	counters := r.attachSyncs(actors)
	r.mu.Lock()
	r.on, r.caseID, r.phase, r.iter, r.actors, r.counters, r.syncBase = true, c.ID(), "", 0, actors, counters, map[string]int64{}
	r.mu.Unlock()
	r.snapshot(ctx, true)
}

func (r *resourceSampler) attachSyncs(actors []backend.Actor) map[string]*syncs.Counter {
	ids, err := syncs.IDs()
	if err != nil {
		r.note(err.Error())
		return nil
	}
	out := map[string]*syncs.Counter{}
	for _, a := range actors {
		c, err := syncs.Attach(ids, collect.Default.Processes(a))
		if err != nil {
			r.note(fmt.Sprintf("%s (%s)", lines.First(err.Error()), a.Name))
			continue
		}
		out[a.Name] = c
	}
	return out
}

// endCase writes the last samples (with data dir sizes) and detaches.
func (r *resourceSampler) endCase(ctx context.Context) {
	r.mu.Lock()
	on := r.on
	r.phase, r.iter = "", 0
	r.mu.Unlock()
	if !on {
		return
	}
	r.snapshot(ctx, true)
	r.mu.Lock()
	r.on = false
	for _, c := range r.counters {
		c.Close()
	}
	r.counters, r.actors, r.caseID = nil, nil, ""
	r.mu.Unlock()
}

// iteration samples an iteration's start, then tags what follows with it;
// iterationEnd samples its end and clears the tag. An interval between two
// samples belongs to the later one's tag, so the start sample stays
// untagged: the iteration's intervals are exactly [start, end].
func (r *resourceSampler) iteration(ctx context.Context, phase string, i int) {
	r.snapshot(ctx, false)
	r.mu.Lock()
	r.phase, r.iter = phase, i
	r.mu.Unlock()
}

func (r *resourceSampler) iterationEnd(ctx context.Context) {
	r.mu.Lock()
	on := r.on
	r.mu.Unlock()
	if !on {
		return
	}
	r.snapshot(ctx, false)
	r.mu.Lock()
	r.phase, r.iter = "", 0
	r.mu.Unlock()
}

// snapshot samples every actor with the current tag.
func (r *resourceSampler) snapshot(ctx context.Context, dataDirs bool) {
	r.mu.Lock()
	if !r.on {
		r.mu.Unlock()
		return
	}
	actors, counters, base := r.actors, r.counters, r.syncBase
	caseID, phase, iter := r.caseID, r.phase, r.iter
	r.mu.Unlock()
	// The host's busy CPU, read just before the actors so the two cover
	// the same instants; only when the backend lists its actors and they
	// all run here (local, compose, a swarm of this machine's engines): a
	// swarm's nodes on other machines are not in this /proc/stat.
	var host []usage.Sample
	if r.lister != nil && onThisHost(actors) {
		if h, err := collect.Default.Host(); err == nil {
			host = []usage.Sample{h}
		} else {
			r.logOnce(err)
		}
	}
	samples, err := collect.Snapshot(ctx, actors)
	if err != nil {
		r.logOnce(err)
	}
	samples = append(samples, host...)
	dirs := map[string]string{}
	for _, a := range actors {
		dirs[a.Name] = a.DataDir
	}
	for i := range samples {
		s := &samples[i]
		s.Network, s.Case, s.Phase, s.Iteration = r.network, caseID, phase, iter
		if c := counters[s.Actor]; c != nil {
			if n, err := c.Count(); err == nil {
				s.Syncs, s.SyncsCounted = base[s.Actor]+n, true
			}
		}
		if dataDirs && dirs[s.Actor] != "" {
			s.DataBytes = diskUsage(dirs[s.Actor])
		}
	}
	if err := r.w.WriteAll(samples); err != nil {
		r.logOnce(err)
	}
}

// follow takes up an actor that was restarted (a fault): its processes
// are new, so it is listed again and its sync counter attached anew,
// counting on from where the old one stopped. CPU counters restart from
// zero; package cost reads a decrease as a reset.
func (r *resourceSampler) follow(ctx context.Context, name string) {
	r.mu.Lock()
	on := r.on
	r.mu.Unlock()
	if !on || r.lister == nil {
		return
	}
	listed, err := r.lister.Actors(ctx)
	if err != nil {
		r.logOnce(err)
		return
	}
	for _, a := range listed {
		if a.Name != name {
			continue
		}
		fresh := r.attachSyncs([]backend.Actor{a})
		r.mu.Lock()
		if !r.on {
			r.mu.Unlock()
			for _, c := range fresh {
				c.Close()
			}
			return
		}
		actors := append([]backend.Actor(nil), r.actors...)
		for i := range actors {
			if actors[i].Name == name {
				actors[i] = a
			}
		}
		r.actors = actors
		counters := map[string]*syncs.Counter{}
		for k, v := range r.counters {
			counters[k] = v
		}
		if old := counters[name]; old != nil {
			if n, err := old.Count(); err == nil {
				r.syncBase[name] += n
			}
			old.Close()
		}
		delete(counters, name)
		if c := fresh[name]; c != nil {
			counters[name] = c
		}
		r.counters = counters
		r.mu.Unlock()
		return
	}
}

func (r *resourceSampler) logOnce(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := lines.First(err.Error())
	if r.failed[key] {
		return
	}
	r.failed[key] = true
	fmt.Fprintf(r.log, "resource sampling: %s\n", key)
}

// stop ends sampling and closes the stream.
func (r *resourceSampler) stop() {
	r.stopOnce.Do(func() {
		r.endCase(context.Background())
		close(r.stopCh)
		<-r.done
		r.w.Close()
	})
}

// onThisHost tells whether every actor runs on this host: a process, or a
// container whose processes are visible here. An actor on another engine
// (backend.Actor.Engine) whose processes are not may be on another machine.
func onThisHost(actors []backend.Actor) bool {
	for _, a := range actors {
		if a.Engine != "" && a.PID == 0 {
			return false
		}
	}
	return true
}

// diskUsage is what `du -s` reports for dir: allocated blocks, in bytes.
func diskUsage(dir string) int64 {
	var total int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable parts are left out
		}
		if info, err := d.Info(); err == nil {
			if st, ok := info.Sys().(*syscall.Stat_t); ok {
				total += st.Blocks * 512
			}
		}
		return nil
	})
	return total
}
