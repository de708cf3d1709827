package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/nodebuild"
)

// cachedRelease puts a finished build of an LND release into cache under
// the key nodebuild computes for it (tiny binaries, true checksums).
func cachedRelease(t *testing.T, cache, version string) {
	t.Helper()
	spec, err := nodebuild.Parse(filepath.Join("..", "images"), "lnd@"+version)
	if err != nil {
		t.Fatal(err)
	}
	key, err := nodebuild.KeyOf(spec)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, "bin", "lnd-"+version+"-"+key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m := nodebuild.Manifest{Implementation: "lnd", Version: version, Key: key, SHA256: map[string]string{}}
	for name := range nodebuild.Packages {
		content := []byte("not a binary: " + name)
		sum := sha256.Sum256(content)
		m.SHA256[name] = hex.EncodeToString(sum[:])
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func planLine(t *testing.T, cache string) (estimate time.Duration, stderr string) {
	t.Helper()
	var out, errw bytes.Buffer
	err := Run(t.Context(), &out, &errw, []string{"run", "--plan", "--backend", "local", "--cache", cache,
		"--artifacts", filepath.Join(t.TempDir(), "arts"), "--node", "a=lnd@v0.21.0-beta", "--node", "b=lnd@v0.21.0-beta+profile=tuned", "--baseline", "a"})
	if err != nil {
		t.Fatal(err, errw.String())
	}
	m := regexp.MustCompile(`estimated ~(\S+)`).FindStringSubmatch(errw.String())
	if m == nil {
		t.Fatalf("no estimate in:\n%s", errw.String())
	}
	d, err := time.ParseDuration(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return d, errw.String()
}

// --plan builds nothing, yet where the cache holds the builds it knows
// the snapshots' keys: the estimate counts each network built once and
// every other launch restored. Without the builds it says why it
// estimates building.
func TestPlanEstimatesRestoresFromCachedBuilds(t *testing.T) {
	cache := t.TempDir()
	built, without := planLine(t, cache)
	if !strings.Contains(without, "snapshots: estimated as built: the cache has no build of lnd@v0.21.0-beta") {
		t.Errorf("the plan does not say why it estimates building:\n%s", without)
	}
	cachedRelease(t, cache, "v0.21.0-beta")
	used, _ := os.Stat(cache)
	restored, with := planLine(t, cache)
	if !strings.Contains(with, "snapshots: 48 of 48 network(s) restored, 0 of them from the cache") {
		t.Errorf("the plan does not count the restores:\n%s", with)
	}
	if restored >= built {
		t.Errorf("estimate %v with the builds cached, %v without: restores should shorten it", restored, built)
	}
	if _, err := os.Stat(filepath.Join(cache, "snapshots")); !os.IsNotExist(err) {
		t.Errorf("--plan made a snapshot folder: %v", err)
	}
	if now, _ := os.Stat(cache); !now.ModTime().Equal(used.ModTime()) {
		t.Errorf("--plan changed the cache folder")
	}
	t.Logf("estimate %v built, %v restored", built, restored)
}
