// Package runid names runs. Everything a run starts carries its id as a
// label, and Docker is shared by every artifacts folder on the machine, so
// an id is reserved machine-wide: two runs started in the same second, from
// any folder, never share one.
package runid

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Layout is the timestamp that starts every id: sortable, UTC, one second.
const Layout = "20060102T150405Z"

// keep is how long a reservation is remembered: its second is long past.
const keep = 24 * time.Hour

// DefaultDir is where reservations live: $LNBENCH_STATE, else lnbench/runs
// in the user's cache folder.
func DefaultDir() string {
	if d := os.Getenv("LNBENCH_STATE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "lnbench", "runs")
	}
	return filepath.Join(os.TempDir(), "lnbench-runs")
}

// Reservations hands out run ids. Each id is a directory under Dir, made
// with one mkdir: the file system decides races between processes.
type Reservations struct {
	Dir string
	Now func() time.Time // nil means time.Now
}

// Default reserves in DefaultDir by the wall clock.
func Default() Reservations { return Reservations{Dir: DefaultDir()} }

// Reserve returns a fresh id "<UTC second>-<name>", then "-2", "-3"… when
// that second already has one. claim takes the id for the caller's own use
// (e.g. creates the artifacts folder); when it fails with os.ErrExist the
// next id is tried, any other error is returned.
func (r Reservations) Reserve(name string, claim func(id string) error) (string, error) {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return "", fmt.Errorf("run id reservations: %v", err)
	}
	t := now()
	r.prune(t)
	base := t.UTC().Format(Layout) + "-" + name
	for i := 1; ; i++ {
		id := base
		if i > 1 {
			id = fmt.Sprintf("%s-%d", base, i)
		}
		if err := os.Mkdir(filepath.Join(r.Dir, id), 0o755); err != nil {
			if errors.Is(err, os.ErrExist) {
				continue
			}
			return "", fmt.Errorf("run id reservation: %v", err)
		}
		err := claim(id)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", err
		}
	}
}

// prune forgets reservations older than keep.
func (r Reservations) prune(now time.Time) {
	entries, _ := os.ReadDir(r.Dir)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > keep {
			os.Remove(filepath.Join(r.Dir, e.Name()))
		}
	}
}
