package nodebuild

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
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

// srcBuild is a build of tree with flavour, built at built.
func srcBuild(t *testing.T, cache, key, tree string, f Flavour, built time.Time) {
	fakeBuild(t, cache, "lnd-src-"+key, key, built, Manifest{Implementation: "lnd", Version: SourceVersion, SourceDir: tree, Flavour: f, BuiltAt: built})
}

func keysOf(es []Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Manifest.Key)
	}
	sort.Strings(out)
	return out
}

// Each edit of a tree is a new build: the older builds of one tree and
// flavour are superseded by the newest, which alone stays by default.
func TestSupersededSourceBuilds(t *testing.T) {
	cache := t.TempDir()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	h := func(n int) time.Time { return now.Add(time.Duration(-n) * time.Hour) }
	srcBuild(t, cache, "edit1", "/home/u/lnd", Flavour{}, h(5))
	srcBuild(t, cache, "edit2", "/home/u/lnd", Flavour{Tags: []string{"signrpc"}}, h(4)) // a stock tag: the same flavour
	srcBuild(t, cache, "edit3", "/home/u/lnd", Flavour{}, h(3))
	srcBuild(t, cache, "pgo", "/home/u/lnd", Flavour{PGO: "/p/cpu.pgo"}, h(6)) // another flavour
	srcBuild(t, cache, "other", "/home/u/lnd2", Flavour{}, h(7))               // another tree
	fakeBuild(t, cache, "lnd-v0.21.0-beta-rel", "rel", h(8), Manifest{Implementation: "lnd", Version: "v0.21.0-beta"})

	entries, err := List(cache)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]string{}
	for _, e := range entries {
		by[e.Manifest.Key] = e.SupersededBy
	}
	want := map[string]string{"edit1": "edit3", "edit2": "edit3", "edit3": "", "pgo": "", "other": "", "rel": ""}
	for k, w := range want {
		if by[k] != w {
			t.Errorf("%s superseded by %q, want %q", k, by[k], w)
		}
	}

	// Not the newest: nothing goes.
	if removed, _, err := PruneSuperseded(cache, "edit1", nil); err != nil || len(removed) != 0 {
		t.Fatalf("pruning for an older build removed %v (%v)", keysOf(removed), err)
	}
	// A live run may still use edit2: kept and reported.
	inUse := func(e Entry) bool { return e.Manifest.Key == "edit2" }
	removed, kept, err := PruneSuperseded(cache, "edit3", inUse)
	if err != nil {
		t.Fatal(err)
	}
	if got := keysOf(removed); len(got) != 1 || got[0] != "edit1" {
		t.Fatalf("removed %v", got)
	}
	if got := keysOf(kept); len(got) != 1 || got[0] != "edit2" {
		t.Fatalf("kept %v", got)
	}
	if _, err := os.Stat(filepath.Join(cache, "bin", "lnd-src-edit1")); !os.IsNotExist(err) {
		t.Fatalf("edit1's folder must be gone: %v", err)
	}

	// build --prune: superseded builds go whatever their age, unless in use or kept.
	rule := PruneRule{UnusedFor: 30 * 24 * time.Hour, Now: now, Superseded: true, InUse: inUse}
	if removed, _ := Prune(cache, rule); len(removed) != 0 {
		t.Fatalf("in use: %v", keysOf(removed))
	}
	rule.InUse = nil
	removed, err = Prune(cache, rule)
	if got := keysOf(removed); err != nil || len(got) != 1 || got[0] != "edit2" {
		t.Fatalf("prune removed %v (%v)", got, err)
	}
	left, _ := List(cache)
	if got := keysOf(left); strings.Join(got, ",") != "edit3,other,pgo,rel" {
		t.Fatalf("left %v", got)
	}
}
