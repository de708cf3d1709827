package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/nodebuild"
)

// cachedBuild puts a finished build of tree (a 1 MB binary) into cache
// (buildset's pruning tests have the same helper).
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

func TestListSaysWhichBuildsAreStale(t *testing.T) {
	cache, now := t.TempDir(), time.Now()
	cachedBuild(t, cache, "edit1", "/src/lnd", now.Add(-3*time.Hour))
	cachedBuild(t, cache, "edit2", "/src/lnd", now.Add(-2*time.Hour))
	cachedBuild(t, cache, "edit3", "/src/lnd", now.Add(-time.Minute))
	cachedBuild(t, cache, "mine", "/src/other", now.Add(-4*time.Hour))

	var list bytes.Buffer
	if err := listBuilds(context.Background(), &list, cache); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"stale: superseded by edit3", "2 stale", "2 MB: `lnbench build --prune` removes them"} {
		if !strings.Contains(list.String(), want) {
			t.Errorf("--list lacks %q:\n%s", want, list.String())
		}
	}
}
