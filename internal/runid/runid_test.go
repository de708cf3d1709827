package runid

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

var second = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func fixed() time.Time { return second }

func claimAny(string) error { return nil }

func TestSameSecondGetsDistinctIDs(t *testing.T) {
	r := Reservations{Dir: t.TempDir(), Now: fixed}
	a, err := r.Reserve("AlicePaysBob", claimAny)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Reserve("AlicePaysBob", claimAny)
	if err != nil {
		t.Fatal(err)
	}
	if a != "20260301T120000Z-AlicePaysBob" || b != "20260301T120000Z-AlicePaysBob-2" {
		t.Fatalf("ids %q, %q", a, b)
	}
}

// Two reservation sets over one folder stand for two processes.
func TestConcurrentReservationsNeverShare(t *testing.T) {
	dir := t.TempDir()
	const n = 32
	ids := make([]string, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			id, err := Reservations{Dir: dir, Now: fixed}.Reserve("x", claimAny)
			if err != nil {
				t.Error(err)
			}
			ids[i] = id
		}()
	}
	close(start)
	wg.Wait()
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("id %q handed out twice: %v", id, ids)
		}
		seen[id] = true
	}
}

func TestClaimTakenSkipsToNextID(t *testing.T) {
	r := Reservations{Dir: t.TempDir(), Now: fixed}
	artifacts := t.TempDir()
	// An artifacts folder left by an earlier machine state holds the first id.
	if err := os.Mkdir(filepath.Join(artifacts, "20260301T120000Z-x"), 0o755); err != nil {
		t.Fatal(err)
	}
	mkdir := func(id string) error { return os.Mkdir(filepath.Join(artifacts, id), 0o755) }
	id, err := r.Reserve("x", mkdir)
	if err != nil || id != "20260301T120000Z-x-2" {
		t.Fatalf("id %q, err %v", id, err)
	}
	boom := errors.New("disk full")
	if _, err := r.Reserve("x", func(string) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("claim error %v, want %v", err, boom)
	}
}

func TestOldReservationsArePruned(t *testing.T) {
	r := Reservations{Dir: t.TempDir(), Now: fixed}
	if _, err := r.Reserve("x", claimAny); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(r.Dir, "20260301T120000Z-x")
	if err := os.Chtimes(old, second, second); err != nil {
		t.Fatal(err)
	}
	later := Reservations{Dir: r.Dir, Now: func() time.Time { return second.Add(25 * time.Hour) }}
	if _, err := later.Reserve("y", claimAny); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatalf("reservation older than a day kept: %v", err)
	}
}
