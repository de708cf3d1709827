package sampler

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/traces"
)

// fakePprof answers /debug/pprof/profile as net/http/pprof does: it takes
// the seconds asked for (whole seconds only) and returns one sample.
func fakePprof(t *testing.T) *httptest.Server {
	fn := &profile.Function{ID: 1, Name: "main.pay"}
	loc := &profile.Location{ID: 1, Line: []profile.Line{{Function: fn}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secs, err := strconv.Atoi(r.URL.Query().Get("seconds"))
		if r.URL.Path != "/debug/pprof/profile" || err != nil || secs < 1 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		select {
		case <-time.After(time.Duration(secs) * time.Second):
		case <-r.Context().Done():
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
// each end is off by at most half a slice (plus a fetch's round trip).
func TestIterationWindowRecordsItsIteration(t *testing.T) {
	srv := fakePprof(t)
	out := t.TempDir()
	origin := time.Now()
	s, err := Start(Config{Mode: scenario.SampleIteration, Slice: time.Second, Targets: []Target{{Actor: "alice", URL: srv.URL}},
		Store: &Store{Out: out, Origin: origin}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	// An iteration of 1.3 s starting 0.4 s into the first slice.
	from := origin.Add(1400 * time.Millisecond)
	to := from.Add(1300 * time.Millisecond)
	time.Sleep(time.Until(to))
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
	const slack = 0.5 + 0.2 // half a slice, plus the fetches' round trips
	if a.StartOffset < -slack || a.StartOffset > slack || a.EndOffset < -slack || a.EndOffset > slack {
		t.Errorf("window %v–%v against iteration %v–%v: %s", w.Start, w.End, from, to, a)
	}
	// Whole slices never match a 1.3 s iteration exactly.
	if a.StartOffset == 0 && a.EndOffset == 0 {
		t.Errorf("alignment reported as exact: %s", a)
	}
	t.Logf("%s", a)
}
