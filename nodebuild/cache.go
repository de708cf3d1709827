package nodebuild

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Entry is one finished build in the cache.
type Entry struct {
	Dir      string
	Manifest Manifest
	Size     int64     // bytes of all its files
	LastUsed time.Time // last build or Locate (a run using it)
	// SupersededBy is the key of a newer build of the same source tree
	// with the same flavour and implementation ("" for the newest, and
	// for releases): each edit of a tree makes a new build, and only the
	// newest is what the tree holds now.
	SupersededBy string
}

// List returns the cache's finished builds, most recently used first.
// Unfinished work folders (.build-*) are not builds and are not listed.
func List(cache string) ([]Entry, error) {
	dirs, err := os.ReadDir(binDir(cache))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, d := range dirs {
		if !d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			continue
		}
		dir := filepath.Join(binDir(cache), d.Name())
		m, err := readManifest(dir)
		if err != nil {
			continue // not a finished build
		}
		e := Entry{Dir: dir, Manifest: m, LastUsed: lastUsed(dir)}
		e.Size, _ = dirSize(dir)
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].LastUsed.After(out[j].LastUsed) })
	markSuperseded(out)
	return out, nil
}

// lineage groups the builds of one source tree with one flavour: they
// differ only by the tree's content (or the toolchain), so the newest
// supersedes the rest. Releases have none ("").
func lineage(m Manifest) string {
	if m.SourceDir == "" || m.Revision != "" {
		return "" // a release, or a fixed revision: nothing supersedes it
	}
	f := m.Flavour
	f.Tags = f.extraTags() // the stock tags, once, in order
	knobs, _ := json.Marshal(f)
	return m.Implementation + "\x00" + m.SourceDir + "\x00" + string(knobs)
}

// builtAt orders builds of a lineage: the manifest's build time, else
// (older manifests) the last use.
func builtAt(e Entry) time.Time {
	if !e.Manifest.BuiltAt.IsZero() {
		return e.Manifest.BuiltAt
	}
	return e.LastUsed
}

// markSuperseded sets SupersededBy on every build of a lineage but its newest.
func markSuperseded(entries []Entry) {
	newest := map[string]int{}
	for i, e := range entries {
		l := lineage(e.Manifest)
		if l == "" {
			continue
		}
		if j, ok := newest[l]; !ok || builtAt(e).After(builtAt(entries[j])) {
			newest[l] = i
		}
	}
	for i, e := range entries {
		if j, ok := newest[lineage(e.Manifest)]; ok && j != i {
			entries[i].SupersededBy = entries[j].Manifest.Key
		}
	}
}

// PruneSuperseded removes the builds that the build with key supersedes
// (older builds of its tree and flavour), except those inUse says a live
// run may still need; it returns what it removed and what it kept.
// Nothing is removed when key is not the newest of its lineage.
func PruneSuperseded(cache, key string, inUse func(Entry) bool) (removed, kept []Entry, err error) {
	entries, err := List(cache)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if e.SupersededBy != key || e.Manifest.Key == key {
			continue
		}
		if inUse != nil && inUse(e) {
			kept = append(kept, e)
			continue
		}
		if err := os.RemoveAll(e.Dir); err != nil {
			return removed, kept, fmt.Errorf("removing %s: %v", e.Dir, err)
		}
		removed = append(removed, e)
	}
	return removed, kept, nil
}

func lastUsed(dir string) time.Time {
	for _, f := range []string{lastUsedFile, manifestFile} {
		if st, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return st.ModTime()
		}
	}
	return time.Time{}
}

func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n, err
}

// PruneRule says which builds Prune removes: every build last used before
// now − UnusedFor, and with Superseded every superseded build whatever its
// age, except the builds whose keys are in Keep and those InUse says a
// live run may need. Work folders
// (.build-*, .image-*) older than StaleWork are leftovers of a killed
// lnbench (an interrupted one removes its own) and are removed too.
type PruneRule struct {
	UnusedFor time.Duration
	Keep      map[string]bool // build keys
	Now       time.Time
	// Superseded also removes every build a newer build of its source
	// tree and flavour superseded (Entry.SupersededBy).
	Superseded bool
	// InUse, when set, keeps the builds it is true for.
	InUse func(Entry) bool
}

// StaleWork is the age after which a work folder cannot belong to a running
// build (a build takes minutes).
const StaleWork = 24 * time.Hour

// Prune removes the builds the rule selects and returns them.
func Prune(cache string, rule PruneRule) ([]Entry, error) {
	entries, err := List(cache)
	if err != nil {
		return nil, err
	}
	cutoff := rule.Now.Add(-rule.UnusedFor)
	var removed []Entry
	for _, e := range entries {
		stale := !e.LastUsed.After(cutoff) || rule.Superseded && e.SupersededBy != ""
		if rule.Keep[e.Manifest.Key] || !stale || rule.InUse != nil && rule.InUse(e) {
			continue
		}
		if err := os.RemoveAll(e.Dir); err != nil {
			return removed, fmt.Errorf("removing %s: %v", e.Dir, err)
		}
		removed = append(removed, e)
	}
	return removed, pruneStaleWork(cache, rule.Now)
}

func pruneStaleWork(cache string, now time.Time) error {
	for _, pattern := range []string{".build-*", ".image-*"} {
		dirs, _ := filepath.Glob(filepath.Join(binDir(cache), pattern))
		for _, d := range dirs {
			st, err := os.Stat(d)
			if err != nil || now.Sub(st.ModTime()) < StaleWork {
				continue
			}
			if err := os.RemoveAll(d); err != nil {
				return fmt.Errorf("removing %s: %v", d, err)
			}
		}
	}
	return nil
}

// KeyOf is the cache key of spec with the toolchain `go` selects, for
// PruneRule.Keep; it builds nothing.
func KeyOf(spec Spec) (string, error) {
	key, _, err := keyFor(context.Background(), spec)
	return key, err
}
