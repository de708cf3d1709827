// Package sampler profiles running nodes: CPU profiles from each actor's
// pprof endpoint, stored per window as pprof, folded stacks and an SVG
// flame graph under <out>/<Actor>_traces/, named by elapsed time.
package sampler

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/pprof/profile"

	"github.com/lnbench/lnbench/flamegraph"
	"github.com/lnbench/lnbench/internal/lines"
	"github.com/lnbench/lnbench/record/traces"
)

// Target is one actor's pprof endpoint, e.g. http://alice:6060.
type Target struct {
	Actor string `json:"actor"`
	URL   string `json:"url"`
}

// Fetch takes one CPU profile of d seconds from a Go pprof endpoint.
func Fetch(ctx context.Context, client *http.Client, t Target, d time.Duration) (*profile.Profile, error) {
	secs := int(d.Round(time.Second) / time.Second)
	if secs < 1 {
		secs = 1
	}
	url := fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", strings.TrimRight(t.URL, "/"), secs)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %v", t.Actor, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %v", t.Actor, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("profile %s: HTTP %d: %s", t.Actor, resp.StatusCode, lines.First(string(body)))
	}
	p, err := profile.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("profile %s: %v", t.Actor, err)
	}
	return p, nil
}

// Store writes p as one window: <out>/<Actor>_traces/<elapsed>s-<label>.{pb.gz,folded,svg}
// and appends it to the index, <out>/traces.jsonl.
type Store struct {
	Out    string
	Origin time.Time
	mu     sync.Mutex
}

func (s *Store) Save(actor, label string, start, end time.Time, p *profile.Profile) (traces.Window, error) {
	return s.SaveFor(actor, label, start, end, nil, p)
}

// SaveFor is Save for a window that stands for an interval (an iteration):
// the index records it, so reports can say how the profiled time lies
// against it.
func (s *Store) SaveFor(actor, label string, start, end time.Time, want *traces.Interval, p *profile.Profile) (traces.Window, error) {
	dir := filepath.Join(s.Out, traces.Dir(actor))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return traces.Window{}, err
	}
	elapsed := start.Sub(s.Origin).Seconds()
	base := fmt.Sprintf("%06.0fs", elapsed)
	if label != "" {
		base += "-" + strings.NewReplacer("/", "_", "=", "-", " ", "_").Replace(label)
	}
	w := traces.Window{Actor: actor, Label: label, Start: start, End: end, Elapsed: elapsed,
		Profile: filepath.Join(traces.Dir(actor), base+".pb.gz"),
		Folded:  filepath.Join(traces.Dir(actor), base+".folded"),
		SVG:     filepath.Join(traces.Dir(actor), base+".svg"), Want: want}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		return w, err
	}
	if err := os.WriteFile(filepath.Join(s.Out, w.Profile), buf.Bytes(), 0o644); err != nil {
		return w, err
	}
	f, err := flamegraph.FromProfile(p)
	if err != nil {
		return w, err
	}
	w.Samples = f.Total()
	var folded bytes.Buffer
	if err := f.Write(&folded); err != nil {
		return w, err
	}
	if err := os.WriteFile(filepath.Join(s.Out, w.Folded), folded.Bytes(), 0o644); err != nil {
		return w, err
	}
	var svg bytes.Buffer
	title := fmt.Sprintf("%s, %s, +%.0f s (%.2f s window)", actor, label, elapsed, end.Sub(start).Seconds())
	if a, ok := w.Alignment(); ok {
		title += "; " + a.String()
	}
	if err := flamegraph.Render(&svg, f, flamegraph.Options{Title: title}); err != nil {
		return w, err
	}
	if err := os.WriteFile(filepath.Join(s.Out, w.SVG), svg.Bytes(), 0o644); err != nil {
		return w, err
	}
	return w, s.index(w)
}

func (s *Store) index(w traces.Window) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return traces.Append(s.Out, w)
}
