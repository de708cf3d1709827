package nodebuild

import (
	"context"
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
	return out, nil
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
// now − UnusedFor, except the builds whose keys are in Keep. Work folders
// (.build-*, .image-*) older than StaleWork are leftovers of a killed
// lnbench (an interrupted one removes its own) and are removed too.
type PruneRule struct {
	UnusedFor time.Duration
	Keep      map[string]bool // build keys
	Now       time.Time
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
		if rule.Keep[e.Manifest.Key] || e.LastUsed.After(cutoff) {
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
