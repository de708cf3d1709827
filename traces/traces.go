// Package traces is the index of profile windows stored in an artifacts
// folder (traces.jsonl and the <Actor>_traces folders): what the sampler
// writes and the reports read, without either knowing the other.
package traces

import (
	"bytes"
	"encoding/json"
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
