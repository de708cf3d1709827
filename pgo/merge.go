// Package pgo turns an earlier run's profiling windows into one CPU profile
// for profile-guided optimisation (go build -pgo), stored by content in the
// build cache so the same windows always give the same file, and so the same
// build key.
package pgo

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/record/traces"
)

// Info says what a merged profile holds and where it came from.
type Info struct {
	RunID   string   // the artifacts folder's name, which is the run id
	Dir     string   // the artifacts folder, absolute
	Actors  []string // actors whose windows were merged, sorted
	Windows int      // windows merged
	Samples int64    // CPU samples in the merged profile
	SHA256  string   // of the written file
	Path    string   // the written file
}

// String is the one-line origin the build manifest records.
func (i Info) String() string {
	return fmt.Sprintf("run %s (%s): %d windows of %s, %d samples", i.RunID, i.Dir, i.Windows, strings.Join(i.Actors, ", "), i.Samples)
}

// Dir is where merged profiles are kept inside the cache.
func Dir(cache string) string { return filepath.Join(cache, "pgo") }

// Merge reads the windows of actors (all actors when empty) from the
// artifacts folder dir and merges them into one profile. Windows merge in a
// fixed order (actor, start, file), so the result depends only on them.
func Merge(dir string, actors []string) (*profile.Profile, Info, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, Info{}, err
	}
	info := Info{RunID: filepath.Base(abs), Dir: abs}
	all, err := traces.ReadIndex(abs)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(all) == 0) {
		return nil, info, fmt.Errorf("no profiling windows in %s: run with sampling: {mode: iteration} or lnbench pgo record", dir)
	}
	if err != nil {
		return nil, info, fmt.Errorf("%s: %v (the index is damaged; record again with lnbench pgo record)", filepath.Join(dir, traces.IndexFile), err)
	}
	windows, err := selectWindows(all, actors, dir)
	if err != nil {
		return nil, info, err
	}
	profiles := make([]*profile.Profile, 0, len(windows))
	for _, w := range windows {
		p, err := readProfile(filepath.Join(abs, w.Profile))
		if err != nil {
			return nil, info, fmt.Errorf("window %s %s: %v (the artifacts folder is incomplete; record again with lnbench pgo record)", w.Actor, w.Label, err)
		}
		profiles = append(profiles, p)
	}
	merged, err := profile.Merge(profiles)
	if err != nil {
		return nil, info, fmt.Errorf("merging the windows of %s: %v (choose actors of one node build with --pgo-actors)", dir, err)
	}
	info.Actors = traces.Actors(windows)
	info.Windows = len(windows)
	info.Samples = sampleCount(merged)
	if info.Samples == 0 {
		return nil, info, fmt.Errorf("the %d windows of %s in %s hold no CPU samples: record under load (lnbench pgo record)", info.Windows, strings.Join(info.Actors, ", "), dir)
	}
	return merged, info, nil
}

// selectWindows keeps the windows of actors, in merge order; an actor
// without windows is an error naming the ones that have some.
func selectWindows(all []traces.Window, actors []string, dir string) ([]traces.Window, error) {
	want := map[string]bool{}
	for _, a := range actors {
		want[a] = true
	}
	var out []traces.Window
	have := map[string]bool{}
	for _, w := range all {
		if len(want) == 0 || want[w.Actor] {
			out = append(out, w)
			have[w.Actor] = true
		}
	}
	for _, a := range actors {
		if !have[a] {
			return nil, fmt.Errorf("--pgo-actors %s: no profiling windows of %s in %s; actors with windows: %s", strings.Join(actors, ","), a, dir, strings.Join(traces.Actors(all), ", "))
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Actor != b.Actor {
			return a.Actor < b.Actor
		}
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		return a.Profile < b.Profile
	})
	return out, nil
}

func readProfile(path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return profile.Parse(f)
}

// sampleCount is the total of the "samples" values (a CPU profile's first
// type), the count go build -pgo weighs edges by.
func sampleCount(p *profile.Profile) int64 {
	idx := 0
	for i, st := range p.SampleType {
		if st.Type == "samples" {
			idx = i
			break
		}
	}
	var n int64
	for _, s := range p.Sample {
		if idx < len(s.Value) {
			n += s.Value[idx]
		}
	}
	return n
}

// MergeFromRun merges the windows of actors (all when empty) of the
// artifacts folder dir and stores the profile in cache as
// pgo/<sha256 prefix>.pgo, with its origin beside it for the build manifest.
// Storing the same windows again writes the same file.
func MergeFromRun(cache, dir string, actors []string) (string, Info, error) {
	p, info, err := Merge(dir, actors)
	if err != nil {
		return "", info, err
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		return "", info, err
	}
	sum := sha256.Sum256(buf.Bytes())
	info.SHA256 = hex.EncodeToString(sum[:])
	info.Path = filepath.Join(Dir(cache), info.SHA256[:16]+".pgo")
	if err := os.MkdirAll(Dir(cache), 0o755); err != nil {
		return "", info, fmt.Errorf("cache dir: %v", err)
	}
	if err := writeAtomic(info.Path, buf.Bytes()); err != nil {
		return "", info, err
	}
	if err := writeAtomic(nodebuild.PGOOriginFile(info.Path), []byte(info.String()+"\n")); err != nil {
		return "", info, err
	}
	return info.Path, info, nil
}

// writeAtomic replaces path with data so a concurrent build never reads a
// half-written profile.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Resolve turns what a user names as a PGO profile into a profile file: an
// artifacts folder is merged (windows of actors, all when empty) into the
// cache; a file is used as it is (Info then holds only its path).
func Resolve(cache, value string, actors []string) (string, Info, error) {
	st, err := os.Stat(value)
	if err != nil {
		return "", Info{}, fmt.Errorf("pgo %q: no such file or folder (name a CPU profile or an earlier run's artifacts folder)", value)
	}
	if st.IsDir() {
		return MergeFromRun(cache, value, actors)
	}
	if len(actors) > 0 {
		return "", Info{}, fmt.Errorf("pgo %q: a profile file has no actors to choose; drop --pgo-actors or name an artifacts folder", value)
	}
	return value, Info{Path: value}, nil
}
