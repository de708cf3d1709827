package nodebuild

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeBuild puts a finished build with key into cache, last used at used.
func fakeBuild(t *testing.T, cache, name, key string, used time.Time, m Manifest) string {
	dir := filepath.Join(cache, "bin", name)
	m.Key, m.SHA256 = key, map[string]string{}
	for _, n := range binaryNames() {
		write(t, filepath.Join(dir, n), n+key)
		m.SHA256[n], _ = fileSHA256(filepath.Join(dir, n))
	}
	data, _ := json.Marshal(m)
	write(t, filepath.Join(dir, manifestFile), string(data))
	write(t, filepath.Join(dir, lastUsedFile), "")
	if err := os.Chtimes(filepath.Join(dir, lastUsedFile), used, used); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestListAndPrune(t *testing.T) {
	cache := t.TempDir()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	fakeBuild(t, cache, "lnd-v0.21.0-beta-aaaa", "aaaa", now.Add(-40*24*time.Hour), Manifest{Implementation: "lnd", Version: "v0.21.0-beta"})
	fakeBuild(t, cache, "lnd-src-bbbb", "bbbb", now.Add(-40*24*time.Hour),
		Manifest{Implementation: "lnd", Version: "src", SourceDir: "/home/u/lnd", GitCommit: "0123456789abcdef", GitDirty: true, Flavour: Flavour{GOAMD64: "v3"}})
	fakeBuild(t, cache, "lnd-v0.20.4-beta-cccc", "cccc", now.Add(-time.Hour), Manifest{Implementation: "lnd", Version: "v0.20.4-beta"})
	write(t, filepath.Join(cache, "bin", ".build-123", "out", "lnd"), "half a build")
	os.Chtimes(filepath.Join(cache, "bin", ".build-123"), now, now)

	entries, err := List(cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 || entries[0].Manifest.Key != "cccc" {
		t.Fatalf("entries %+v", entries)
	}
	var src Entry
	for _, e := range entries {
		if e.Manifest.Key == "bbbb" {
			src = e
		}
	}
	if from := src.Manifest.From(); from != "lnd@src:/home/u/lnd (git 0123456789ab, dirty) goamd64=v3" {
		t.Fatalf("from %q", from)
	}
	if src.Size != int64(len(manifestBytes(t, src.Dir)))+sumLen("bbbb") {
		t.Fatalf("size %d", src.Size)
	}

	removed, err := Prune(cache, PruneRule{UnusedFor: 30 * 24 * time.Hour, Keep: map[string]bool{"aaaa": true}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0].Manifest.Key != "bbbb" {
		t.Fatalf("removed %+v", removed)
	}
	left, _ := List(cache)
	if len(left) != 2 {
		t.Fatalf("left %+v", left)
	}
	if _, err := os.Stat(filepath.Join(cache, "bin", ".build-123")); err != nil {
		t.Fatal("prune must leave recent work folders (a build may be running)")
	}
	stale := filepath.Join(cache, "bin", ".build-123")
	os.Chtimes(stale, now.Add(-2*StaleWork), now.Add(-2*StaleWork))
	Prune(cache, PruneRule{UnusedFor: 30 * 24 * time.Hour, Keep: map[string]bool{"aaaa": true, "cccc": true}, Now: now})
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("a work folder older than StaleWork must go: %v", err)
	}
	removed, _ = Prune(cache, PruneRule{UnusedFor: 0, Keep: map[string]bool{"aaaa": true}, Now: now})
	if len(removed) != 1 || removed[0].Manifest.Key != "cccc" {
		t.Fatalf("unused-days 0 must remove all but the kept: %+v", removed)
	}
}

func manifestBytes(t *testing.T, dir string) []byte {
	data, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func sumLen(key string) int64 {
	var n int64
	for _, b := range binaryNames() {
		n += int64(len(b + key))
	}
	return n
}

func TestListOfEmptyCache(t *testing.T) {
	if entries, err := List(filepath.Join(t.TempDir(), "none")); err != nil || len(entries) != 0 {
		t.Fatalf("%v %v", entries, err)
	}
}

func TestLocateFindsVerifiesAndMarksUse(t *testing.T) {
	spec := releaseModule(t)
	cache := t.TempDir()
	_, err := Locate(cache, spec)
	if err == nil || !strings.Contains(err.Error(), "not built yet") || !strings.Contains(err.Error(), "lnbench build --version lnd@v0") {
		t.Fatalf("err %v", err)
	}
	key, err := KeyOf(spec)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	dir := fakeBuild(t, cache, "lnd-v0-"+key, key, old, Manifest{Implementation: "lnd", Version: "v0"})
	r, err := Locate(cache, spec)
	if err != nil || r.Dir != dir || r.Built {
		t.Fatalf("locate %+v %v", r, err)
	}
	if !lastUsed(dir).After(old) {
		t.Fatal("Locate must record the use for --prune")
	}
	write(t, filepath.Join(dir, "lnd"), "tampered")
	if _, err := Locate(cache, spec); err == nil || !strings.Contains(err.Error(), "corrupt binary lnd") {
		t.Fatalf("tampered: %v", err)
	}
}
