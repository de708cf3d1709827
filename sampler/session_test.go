package sampler

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/lnbench/lnbench/record/traces"
	"github.com/lnbench/lnbench/scenario"
)

// clock is a fake time that the fake pprof endpoint moves on.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

// advance moves the clock d on, unless that passes horizon (false).
func (c *clock) advance(d time.Duration, horizon time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.now.Add(d).After(horizon) {
		return false
	}
	c.now = c.now.Add(d)
	return true
}

// fakePprof answers /debug/pprof/profile as net/http/pprof does (whole
// seconds only, one sample), at once: the profile's seconds pass on clk.
// Past horizon it holds the request until the client gives up, so the
// slicer stops making slices.
func fakePprof(t *testing.T, clk *clock, horizon time.Time) *httptest.Server {
	fn := &profile.Function{ID: 1, Name: "main.pay"}
	loc := &profile.Location{ID: 1, Line: []profile.Line{{Function: fn}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secs, err := strconv.Atoi(r.URL.Query().Get("seconds"))
		if r.URL.Path != "/debug/pprof/profile" || err != nil || secs < 1 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if !clk.advance(time.Duration(secs)*time.Second, horizon) {
			<-r.Context().Done()
			return
		}
		p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}},
			Sample:   []*profile.Sample{{Location: []*profile.Location{loc}, Value: []int64{1}}},
			Function: []*profile.Function{fn}, Location: []*profile.Location{loc}}
		p.Write(w)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestIterationWindowRecordsItsIteration: an iteration that does not fall
// on slice boundaries gets a window of whole slices, and the index keeps
// the iteration beside it, so the misalignment is reported, not hidden:
// each end is off by at most half a slice. On a fake clock the slices are
// exactly [0 s, 1 s], [1 s, 2 s], …, so the offsets are exact.
func TestIterationWindowRecordsItsIteration(t *testing.T) {
	origin := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	clk := &clock{now: origin}
	srv := fakePprof(t, clk, origin.Add(5*time.Second))
	out := t.TempDir()
	s, err := Start(Config{Mode: scenario.SampleIteration, Slice: time.Second, Targets: []Target{{Actor: "alice", URL: srv.URL}},
		Store: &Store{Out: out, Origin: origin}, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	// An iteration of 1.3 s starting 0.4 s into the second slice.
	from := origin.Add(1400 * time.Millisecond)
	to := from.Add(1300 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Iteration(ctx, "measure/c/0", from, to); err != nil {
		t.Fatal(err)
	}
	ws, err := traces.ReadIndex(out)
	if err != nil || len(ws) != 1 {
		t.Fatalf("index: %v, %+v", err, ws)
	}
	w := ws[0]
	if w.Want == nil || !w.Want.Start.Equal(from) || !w.Want.End.Equal(to) {
		t.Fatalf("window does not record its iteration %v–%v: %+v", from, to, w.Want)
	}
	a, ok := w.Alignment()
	if !ok {
		t.Fatal("no alignment")
	}
	// The slices whose middle (1.5 s, 2.5 s) lies in the iteration: 1–3 s.
	const eps = 1e-9
	if math.Abs(a.StartOffset - -0.4) > eps || math.Abs(a.EndOffset-0.3) > eps {
		t.Errorf("window %v–%v against iteration %v–%v: %s, want -0.40 s / +0.30 s", w.Start, w.End, from, to, a)
	}
	t.Logf("%s", a)
}
