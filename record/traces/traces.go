// Package traces is the index of profile windows stored in an artifacts
// folder (traces.jsonl and the <Actor>_traces folders): what the sampler
// writes and the reports read, without either knowing the other.
package traces

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// IndexFile is the index of every stored window, one JSON object per line.
const IndexFile = "traces.jsonl"

// Window is one stored profile.
type Window struct {
	Actor   string    `json:"actor"`
	Label   string    `json:"label"` // e.g. "periodic", "measure/Concurrency=7/3"
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	Elapsed float64   `json:"elapsed_s"` // start relative to the run's origin
	Samples int64     `json:"samples"`
	Profile string    `json:"profile"` // paths relative to the artifacts folder
	Folded  string    `json:"folded"`
	SVG     string    `json:"svg"`
	// Want is the interval the window stands for, when it stands for one
	// (a measured iteration): the window is made of whole pprof slices, so
	// its Start and End differ from Want's; Alignment says by how much.
	Want *Interval `json:"want,omitempty"`
}

// Interval is a span of wall-clock time.
type Interval struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// Alignment is how a window's profiled time lies against the interval it
// stands for, in seconds.
type Alignment struct {
	// StartOffset is Start − Want.Start: negative when profiling began
	// before the interval, positive when its first part was missed.
	StartOffset float64 `json:"start_offset_s"`
	// EndOffset is End − Want.End: positive when profiling went on after
	// the interval, negative when its last part was missed.
	EndOffset float64 `json:"end_offset_s"`
	// Missed is the part of the interval not profiled; Extra the part of
	// the window outside the interval.
	Missed float64 `json:"missed_s"`
	Extra  float64 `json:"extra_s"`
	// Covered is the profiled fraction of the interval, 0..1; Length the
	// interval's.
	Covered float64 `json:"covered"`
	Length  float64 `json:"length_s"`
}

// Alignment of w against Want; false when the window stands for no interval.
func (w Window) Alignment() (Alignment, bool) {
	if w.Want == nil {
		return Alignment{}, false
	}
	want := w.Want.End.Sub(w.Want.Start).Seconds()
	overlap := minTime(w.End, w.Want.End).Sub(maxTime(w.Start, w.Want.Start)).Seconds()
	if overlap < 0 {
		overlap = 0
	}
	a := Alignment{StartOffset: w.Start.Sub(w.Want.Start).Seconds(), EndOffset: w.End.Sub(w.Want.End).Seconds(),
		Missed: want - overlap, Extra: w.End.Sub(w.Start).Seconds() - overlap, Covered: 1, Length: want}
	if want > 0 {
		a.Covered = overlap / want
	}
	return a, true
}

// String reads e.g. "window −0.34 s / +0.66 s of the iteration's start /
// end: covers 100% of its 1.30 s, 1.00 s outside it".
func (a Alignment) String() string {
	return fmt.Sprintf("window %+.2f s / %+.2f s of the iteration's start / end: covers %.0f%% of its %.2f s, %.2f s outside it",
		a.StartOffset, a.EndOffset, 100*a.Covered, a.Length, a.Extra)
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Dir is where an actor's windows go, as the original named it.
func Dir(actor string) string {
	if actor == "" {
		return "traces"
	}
	return strings.ToUpper(actor[:1]) + actor[1:] + "_traces"
}

// Append adds w to dir's index. Callers that write concurrently serialise.
func Append(dir string, w Window) error {
	f, err := os.OpenFile(filepath.Join(dir, IndexFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if err := json.NewEncoder(f).Encode(w); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadIndex reads every window of an artifacts folder; a folder where
// nothing was sampled gives an error satisfying os.IsNotExist.
func ReadIndex(dir string) ([]Window, error) {
	data, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		return nil, err
	}
	var ws []Window
	dec := json.NewDecoder(bytes.NewReader(data))
	for dec.More() {
		var w Window
		if err := dec.Decode(&w); err != nil {
			return ws, err
		}
		ws = append(ws, w)
	}
	return ws, nil
}

// Actors lists the actors that have windows, sorted.
func Actors(ws []Window) []string {
	set := map[string]bool{}
	for _, w := range ws {
		set[w.Actor] = true
	}
	var out []string
	for a := range set {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}
