package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Cache is a folder of snapshots: <key>/manifest.json and <key>/data/<actor>/.
// Entries appear whole (a rename) or not at all; an interrupted save leaves
// a ".tmp-" folder that no lookup takes and Prune removes.
type Cache struct{ Dir string }

const (
	manifestFile = "manifest.json"
	dataDir      = "data"
	tmpPrefix    = ".tmp-"
	asidePrefix  = ".aside-"
	whyFile      = "set-aside.txt"
)

// ErrNotFound is a key with no snapshot in the cache.
var ErrNotFound = errors.New("no snapshot")

// Find reads the manifest of key's snapshot; ErrNotFound when there is none.
func (c Cache) Find(key string) (Manifest, error) {
	data, err := os.ReadFile(filepath.Join(c.Dir, key, manifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return Manifest{}, fmt.Errorf("%w %s in %s", ErrNotFound, key, c.Dir)
	}
	if err != nil {
		return Manifest{}, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return Manifest{}, fmt.Errorf("snapshot %s: manifest: %v", key, err)
	}
	return m, nil
}

// Save copies each actor's folder (actor → path) into the cache under
// m.Key, fills in m.Folders' sizes and m.Format, and publishes the entry
// with one rename. An entry already there is kept (the same key is the
// same network) and its manifest returned.
func (c Cache) Save(m Manifest, folders map[string]string) (Manifest, error) {
	if m.Key == "" || strings.ContainsAny(m.Key, `/\`) || strings.HasPrefix(m.Key, ".") {
		return m, fmt.Errorf("snapshot key %q: not a folder name", m.Key)
	}
	if old, err := c.Find(m.Key); err == nil {
		return old, nil
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return m, err
	}
	tmp, err := os.MkdirTemp(c.Dir, tmpPrefix+m.Key+"-")
	if err != nil {
		return m, err
	}
	defer os.RemoveAll(tmp) // gone once renamed; the leftovers of a failure otherwise
	m.Format, m.Folders = Format, map[string]int64{}
	for _, actor := range slices.Sorted(mapKeys(folders)) {
		if actor == "" || strings.ContainsAny(actor, `/\`) || strings.HasPrefix(actor, ".") {
			return m, fmt.Errorf("snapshot %s: actor name %q is not a folder name", m.Key, actor)
		}
		n, err := copyTree(folders[actor], filepath.Join(tmp, dataDir, actor))
		if err != nil {
			return m, fmt.Errorf("snapshot %s: saving %s: %v", m.Key, actor, err)
		}
		m.Folders[actor] = n
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return m, err
	}
	if err := os.WriteFile(filepath.Join(tmp, manifestFile), append(data, '\n'), 0o600); err != nil {
		return m, err
	}
	if err := os.Rename(tmp, filepath.Join(c.Dir, m.Key)); err != nil {
		if old, ferr := c.Find(m.Key); ferr == nil { // another run saved it first
			return old, nil
		}
		return m, fmt.Errorf("snapshot %s: %v", m.Key, err)
	}
	return m, nil
}

// Restore copies key's saved folders into the given ones (actor → path),
// which must be empty or absent: every actor saved must be given one, and
// only those.
func (c Cache) Restore(key string, folders map[string]string) error {
	m, err := c.Find(key)
	if err != nil {
		return err
	}
	if got, want := slices.Sorted(mapKeys(folders)), m.Actors(); !slices.Equal(got, want) {
		return fmt.Errorf("snapshot %s holds %s; asked to restore %s", key, strings.Join(want, ", "), strings.Join(got, ", "))
	}
	for _, actor := range m.Actors() {
		dst := folders[actor]
		if entries, err := os.ReadDir(dst); err == nil && len(entries) > 0 {
			return fmt.Errorf("snapshot %s: restoring %s: %s is not empty", key, actor, dst)
		}
		n, err := copyTree(filepath.Join(c.Dir, key, dataDir, actor), dst)
		if err != nil {
			return fmt.Errorf("snapshot %s: restoring %s: %v", key, actor, err)
		}
		if n != m.Folders[actor] {
			return fmt.Errorf("snapshot %s: %s holds %d bytes, its manifest says %d", key, actor, n, m.Folders[actor])
		}
	}
	return nil
}

// Entry is one folder of the cache: a snapshot, or one set aside.
type Entry struct {
	Manifest Manifest
	// Aside says why the snapshot was set aside ("" for a usable one).
	Aside string
	// Path is the entry's folder; Err what made it unreadable.
	Path string
	Err  error
}

// List reads every entry, newest first; leftovers of interrupted saves
// are not entries.
func (c Cache) List() ([]Entry, error) {
	dirs, err := os.ReadDir(c.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, d := range dirs {
		if !d.IsDir() || strings.HasPrefix(d.Name(), tmpPrefix) {
			continue
		}
		e := Entry{Path: filepath.Join(c.Dir, d.Name())}
		if strings.HasPrefix(d.Name(), asidePrefix) {
			why, _ := os.ReadFile(filepath.Join(e.Path, whyFile))
			e.Aside = strings.TrimSpace(string(why))
			if e.Aside == "" {
				e.Aside = "set aside"
			}
		}
		e.Manifest, e.Err = Cache{Dir: c.Dir}.Find(d.Name())
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return b.Manifest.Made.Compare(a.Manifest.Made) })
	return out, nil
}

// SetAside moves key's snapshot out of the way of lookups, with why it
// did not restore; it stays listed until pruned.
func (c Cache) SetAside(key, why string) error {
	src := filepath.Join(c.Dir, key)
	dst := filepath.Join(c.Dir, asidePrefix+key+"-"+time.Now().UTC().Format("20060102T150405.000000000"))
	if err := os.Rename(src, dst); err != nil {
		return fmt.Errorf("setting snapshot %s aside: %v", key, err)
	}
	return os.WriteFile(filepath.Join(dst, whyFile), []byte(why+"\n"), 0o600)
}

// Prune removes the entries remove says to (set-aside ones included) and
// the leftovers of interrupted saves; it returns what it removed.
func (c Cache) Prune(remove func(Entry) bool) ([]Entry, error) {
	entries, err := c.List()
	if err != nil {
		return nil, err
	}
	var gone []Entry
	var errs []error
	for _, e := range entries {
		if !remove(e) {
			continue
		}
		if err := os.RemoveAll(e.Path); err != nil {
			errs = append(errs, err)
			continue
		}
		gone = append(gone, e)
	}
	dirs, _ := os.ReadDir(c.Dir)
	for _, d := range dirs {
		if strings.HasPrefix(d.Name(), tmpPrefix) {
			errs = append(errs, os.RemoveAll(filepath.Join(c.Dir, d.Name())))
		}
	}
	return gone, errors.Join(errs...)
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
