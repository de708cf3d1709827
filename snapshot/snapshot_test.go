package snapshot

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func facts(build string) Facts {
	return Facts{Topology: "alice->bob 1000000", Chain: "btcd k1 simnet", Actors: map[string]ActorFacts{
		"alice": {Implementation: "lnd", Build: build}, "bob": {Implementation: "lnd", Build: build, Settings: []string{"--db.backend=bolt"}}}}
}

func TestKeyFollowsEveryFact(t *testing.T) {
	a, b := facts("lnd-a"), facts("lnd-a")
	if Key(a) != Key(b) || !strings.HasPrefix(Key(a), "net-") {
		t.Fatalf("equal facts, keys %s %s", Key(a), Key(b))
	}
	changed := []Facts{facts("lnd-b"), facts("lnd-a"), facts("lnd-a"), facts("lnd-a")}
	changed[1].Topology += " seed 2"
	changed[2].Chain = "btcd k1 regtest"
	changed[3].Actors["bob"] = ActorFacts{Implementation: "lnd", Build: "lnd-a", Settings: []string{"--db.backend=sqlite"}}
	for i, f := range changed {
		if Key(f) == Key(a) {
			t.Errorf("change %d kept the key", i)
		}
	}
}

// node makes an actor's data folder: a file, a nested file, a symbolic
// link and a socket (a running node's RPC socket, not data).
func node(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "data", "chain"), 0o700)
	os.WriteFile(filepath.Join(dir, "tls.cert"), []byte("cert "+content), 0o644)
	os.WriteFile(filepath.Join(dir, "data", "chain", "channel.db"), []byte(strings.Repeat(content, 100)), 0o600)
	os.Symlink("tls.cert", filepath.Join(dir, "cert-link"))
	sock := filepath.Join(dir, "rpc")
	if ln, err := net.Listen("unix", sock); err == nil {
		t.Cleanup(func() { ln.Close() })
	}
	return dir
}

func saved(t *testing.T, c Cache) Manifest {
	t.Helper()
	f := facts("lnd-a")
	m, err := c.Save(Manifest{Key: Key(f), Facts: f, Made: time.Now(), By: "test"}, map[string]string{"alice": node(t, "a"), "bob": node(t, "b")})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSaveThenRestore(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	m := saved(t, c)
	if m.Format != Format || m.Folders["alice"] != int64(len("cert a")+100) || m.Bytes() != m.Folders["alice"]+m.Folders["bob"] {
		t.Fatalf("manifest %+v", m)
	}
	found, err := c.Find(m.Key)
	if err != nil || found.Key != m.Key || found.By != "test" || found.Check(m.Key, facts("lnd-a")) != nil {
		t.Fatalf("found %+v %v", found, err)
	}
	if err := found.Check(m.Key, facts("lnd-b")); err == nil || !strings.Contains(err.Error(), "another network") {
		t.Errorf("a changed build restored an old snapshot: %v", err)
	}
	dst := map[string]string{"alice": filepath.Join(t.TempDir(), "alice"), "bob": filepath.Join(t.TempDir(), "bob")}
	if err := c.Restore(m.Key, dst); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dst["bob"], "data", "chain", "channel.db"))
	if err != nil || string(data) != strings.Repeat("b", 100) {
		t.Errorf("bob's channel.db: %q %v", data, err)
	}
	if link, err := os.Readlink(filepath.Join(dst["alice"], "cert-link")); err != nil || link != "tls.cert" {
		t.Errorf("link %q %v", link, err)
	}
	if _, err := os.Lstat(filepath.Join(dst["alice"], "rpc")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a socket was copied: %v", err)
	}
	// Into a folder that holds something, or for other actors: refused.
	if err := c.Restore(m.Key, dst); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("restore over data: %v", err)
	}
	if err := c.Restore(m.Key, map[string]string{"alice": t.TempDir()}); err == nil || !strings.Contains(err.Error(), "holds alice, bob") {
		t.Errorf("restore of one actor: %v", err)
	}
	if _, err := c.Find("net-none"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing key: %v", err)
	}
}

func TestASaveIsWholeOrAbsent(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	f := facts("lnd-a")
	// A save that fails part way (a folder that is not there) leaves
	// nothing a lookup takes, and no temporary folder either.
	_, err := c.Save(Manifest{Key: Key(f), Facts: f}, map[string]string{"alice": node(t, "a"), "bob": filepath.Join(t.TempDir(), "gone")})
	if err == nil {
		t.Fatal("saved a missing folder")
	}
	if _, err := c.Find(Key(f)); !errors.Is(err, ErrNotFound) {
		t.Errorf("a failed save is found: %v", err)
	}
	// A killed save's leftover is no entry, and Prune removes it.
	os.MkdirAll(filepath.Join(c.Dir, tmpPrefix+Key(f)+"-123", dataDir, "alice"), 0o700)
	if entries, err := c.List(); err != nil || len(entries) != 0 {
		t.Errorf("entries %+v %v", entries, err)
	}
	if _, err := c.Prune(func(Entry) bool { return false }); err != nil {
		t.Fatal(err)
	}
	if dirs, _ := os.ReadDir(c.Dir); len(dirs) != 0 {
		t.Errorf("left after prune: %v", dirs)
	}
	// The same key twice keeps the first.
	first := saved(t, c)
	second, err := c.Save(Manifest{Key: first.Key, Facts: f, By: "second"}, map[string]string{"alice": node(t, "x"), "bob": node(t, "y")})
	if err != nil || second.By != "test" {
		t.Errorf("second save: %+v %v", second, err)
	}
	if _, err := c.Save(Manifest{Key: "../escape"}, nil); err == nil {
		t.Error("a key that is a path was taken")
	}
}

func TestACorruptSnapshotIsSetAside(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	m := saved(t, c)
	os.WriteFile(filepath.Join(c.Dir, m.Key, dataDir, "bob", "tls.cert"), []byte("x"), 0o644)
	dst := map[string]string{"alice": filepath.Join(t.TempDir(), "a"), "bob": filepath.Join(t.TempDir(), "b")}
	err := c.Restore(m.Key, dst)
	if err == nil || !strings.Contains(err.Error(), "its manifest says") {
		t.Fatalf("a changed file restored: %v", err)
	}
	if err := c.SetAside(m.Key, err.Error()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Find(m.Key); !errors.Is(err, ErrNotFound) {
		t.Errorf("set aside, still found: %v", err)
	}
	entries, err := c.List()
	if err != nil || len(entries) != 1 || !strings.Contains(entries[0].Aside, "its manifest says") || entries[0].Manifest.Key != m.Key {
		t.Fatalf("entries %+v %v", entries, err)
	}
	gone, err := c.Prune(func(e Entry) bool { return e.Aside != "" })
	if err != nil || len(gone) != 1 {
		t.Errorf("pruned %+v %v", gone, err)
	}
}

func TestExportImport(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	m := saved(t, c)
	var file bytes.Buffer
	if err := c.Export(&file, m.Key); err != nil {
		t.Fatal(err)
	}
	other := Cache{Dir: t.TempDir()}
	got, err := other.Import(bytes.NewReader(file.Bytes()))
	if err != nil || got.Key != m.Key || got.Bytes() != m.Bytes() {
		t.Fatalf("imported %+v %v", got, err)
	}
	dst := map[string]string{"alice": filepath.Join(t.TempDir(), "a"), "bob": filepath.Join(t.TempDir(), "b")}
	if err := other.Restore(m.Key, dst); err != nil {
		t.Fatal(err)
	}
	// Not a snapshot, or one whose facts were edited: refused, nothing left.
	for name, data := range map[string][]byte{"text": []byte("hello"), "edited": edited(t, file.Bytes())} {
		empty := Cache{Dir: t.TempDir()}
		if _, err := empty.Import(bytes.NewReader(data)); err == nil {
			t.Errorf("%s imported", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
		if dirs, _ := os.ReadDir(empty.Dir); len(dirs) != 0 {
			t.Errorf("%s left %v", name, dirs)
		}
	}
}

// edited rewrites an export's manifest with another build in its facts.
func edited(t *testing.T, export []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(export))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		data, _ := io.ReadAll(tr)
		if hdr.Name == manifestFile {
			data = bytes.Replace(data, []byte("lnd-a"), []byte("lnd-z"), -1)
			hdr.Size = int64(len(data))
		}
		tw.WriteHeader(hdr)
		tw.Write(data)
	}
	tw.Close()
	zw.Close()
	return out.Bytes()
}
