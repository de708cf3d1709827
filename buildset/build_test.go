package buildset

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/internal/runid"
	"github.com/lnbench/lnbench/internal/runs"
	"github.com/lnbench/lnbench/nodebuild"
)

// cachedBuild puts a finished build of tree (a 1 MB binary) into cache.
func cachedBuild(t *testing.T, cache, key, tree string, built time.Time) {
	t.Helper()
	dir := filepath.Join(cache, "bin", "lnd-src-"+key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m := nodebuild.Manifest{Implementation: "lnd", Version: nodebuild.SourceVersion, Key: key, SourceDir: tree, BuiltAt: built}
	data, _ := json.Marshal(m)
	for name, content := range map[string][]byte{"manifest.json": data, "lnd": make([]byte, 1e6), "last-used": nil} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chtimes(filepath.Join(dir, "last-used"), built, built)
}

func TestSourceBuildRemovesOlderBuildsOfItsTree(t *testing.T) {
	cache, now := t.TempDir(), time.Now()
	cachedBuild(t, cache, "edit1", "/src/lnd", now.Add(-3*time.Hour))
	cachedBuild(t, cache, "edit2", "/src/lnd", now.Add(-2*time.Hour))
	cachedBuild(t, cache, "edit3", "/src/lnd", now.Add(-time.Minute))
	cachedBuild(t, cache, "mine", "/src/other", now.Add(-4*time.Hour))

	var log bytes.Buffer
	pruneOlderBuilds(context.Background(), cache, "/src/lnd", "edit3", t.TempDir(), os.Getpid(), &log)
	for _, want := range []string{"removed an older build of /src/lnd: edit1 (1 MB, built 3h ago)", "removed an older build of /src/lnd: edit2", "LNBENCH_KEEP_OLD_BUILDS=1 keeps them"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	left, _ := nodebuild.List(cache)
	if len(left) != 2 {
		t.Fatalf("left %+v", left)
	}
}

func TestLiveRunKeepsTheOlderBuildItMayUse(t *testing.T) {
	cache, now := t.TempDir(), time.Now()
	cachedBuild(t, cache, "edit1", "/src/lnd", now.Add(-10*time.Minute)) // located by the live run
	cachedBuild(t, cache, "edit0", "/src/lnd", now.Add(-5*time.Hour))    // before it started
	cachedBuild(t, cache, "edit2", "/src/lnd", now)
	root := t.TempDir()
	id := now.UTC().Add(-5*time.Minute).Format(runid.Layout) + "-bench"
	if err := runs.Claim(filepath.Join(root, id)); err != nil { // this process as the live harness
		t.Fatal(err)
	}
	var log bytes.Buffer
	pruneOlderBuilds(context.Background(), cache, "/src/lnd", "edit2", root, 0, &log)
	if !strings.Contains(log.String(), "kept an older build of /src/lnd: edit1: run "+id) ||
		!strings.Contains(log.String(), "removed an older build of /src/lnd: edit0") {
		t.Fatalf("log:\n%s", log.String())
	}
	// The harness that builds is no live run of its own.
	log.Reset()
	pruneOlderBuilds(context.Background(), cache, "/src/lnd", "edit2", root, os.Getpid(), &log)
	if !strings.Contains(log.String(), "removed an older build of /src/lnd: edit1") {
		t.Fatalf("log:\n%s", log.String())
	}
}
