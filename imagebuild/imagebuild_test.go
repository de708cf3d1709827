package imagebuild

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lnbench/lnbench/nodebuild"
)

func TestMirrorFromDeb822(t *testing.T) {
	text := `Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://deb.debian.org/debian/
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
`
	if got := mirrorFromDeb822(text); got != "http://deb.debian.org/debian" {
		t.Fatalf("mirror = %q", got)
	}
	security := "Types: deb\nURIs: http://security.debian.org/debian-security\nSuites: bookworm-security\n"
	if got := mirrorFromDeb822(security); got != "" {
		t.Fatalf("a security-only source must give no mirror, got %q", got)
	}
	if got := mirrorFromDeb822("Types: deb-src\nURIs: http://x/debian\nSuites: bookworm\n"); got != "" {
		t.Fatalf("deb-src must be skipped, got %q", got)
	}
}

func TestMirrorFromList(t *testing.T) {
	text := `# comment
deb-src http://src.example/debian bookworm main
deb [arch=amd64 signed-by=/k.gpg] http://mirror.example/debian/ bookworm main contrib
deb http://security.debian.org/debian-security bookworm-security main
`
	if got := mirrorFromList(text); got != "http://mirror.example/debian" {
		t.Fatalf("mirror = %q", got)
	}
}

func TestHostMirrorPrefersSourcesFiles(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sources.list.d"), 0o755)
	os.WriteFile(filepath.Join(dir, "sources.list"), []byte("deb http://list.example/debian bookworm main\n"), 0o644)
	if got, err := hostMirror(dir); err != nil || got != "http://list.example/debian" {
		t.Fatalf("from sources.list: %q, %v", got, err)
	}
	os.WriteFile(filepath.Join(dir, "sources.list.d", "debian.sources"), []byte("Types: deb\nURIs: http://deb822.example/debian\nSuites: bookworm\n"), 0o644)
	if got, err := hostMirror(dir); err != nil || got != "http://deb822.example/debian" {
		t.Fatalf("from debian.sources: %q, %v", got, err)
	}
	if _, err := hostMirror(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no Debian mirror") {
		t.Fatalf("empty apt config must fail with a clear error, got %v", err)
	}
}

func TestTagsAreContentHashes(t *testing.T) {
	a, b := BaseTag("1.0.128"), BaseTag("1.0.129")
	if a == b || !strings.HasPrefix(a, BaseRepo+":") || a != BaseTag("1.0.128") {
		t.Fatalf("base tags: %q %q", a, b)
	}
	m := nodebuild.Manifest{Implementation: "lnd", Version: "v0.21.0-beta", SHA256: map[string]string{"lnd": "1", "lncli": "2", "btcd": "3", "btcctl": "4"}}
	s1, _ := loadScripts(fstest.MapFS{"README.md": {Data: []byte("x")}})
	s2, _ := loadScripts(fstest.MapFS{"README.md": {Data: []byte("y")}, "sample-loop.sh": {Data: []byte("#!/bin/sh\n")}})
	if len(s1) != 0 || len(s2) != 1 {
		t.Fatalf("README must not be copied: %v %v", s1, s2)
	}
	df := []byte("ARG BASE\nFROM ${BASE}\nCOPY bin/ /usr/local/bin/\n")
	t1 := NodeTag(a, m, s1, df)
	if !strings.HasPrefix(t1, NodeRepo+":v0.21.0-beta-") || t1 != NodeTag(a, m, s1, df) {
		t.Fatalf("node tag %q", t1)
	}
	if t1 == NodeTag(b, m, s1, df) || t1 == NodeTag(a, m, s2, df) {
		t.Fatal("node tag must change with the base and the scripts")
	}
	if t1 == NodeTag(a, m, s1, append(df, "RUN apt-get install -y strace\n"...)) {
		t.Fatal("node tag must change with the Dockerfile")
	}
	keyed := m
	keyed.Key = "0123456789abcdef"
	if t1 == NodeTag(a, keyed, s1, df) {
		t.Fatal("node tag must change with the build key")
	}
	m.SHA256 = map[string]string{"lnd": "changed", "lncli": "2", "btcd": "3", "btcctl": "4"}
	if t1 == NodeTag(a, m, s1, df) {
		t.Fatal("node tag must change with the binaries")
	}
}

func TestEmbeddedScriptsLoad(t *testing.T) {
	if _, err := loadScripts(nil); err != nil {
		t.Fatal(err)
	}
}

func TestRepositoryDockerfile(t *testing.T) {
	path := DockerfilePath(filepath.Join("..", "images"), "lnd")
	data, err := readDockerfile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "FROM ${BASE}") || !strings.Contains(string(data), "COPY bin/ /usr/local/bin/") {
		t.Fatalf("%s must build FROM ${BASE} and copy bin/:\n%s", path, data)
	}
	if _, err := readDockerfile(""); err == nil || !strings.Contains(err.Error(), "images/lnd/Dockerfile") {
		t.Fatalf("no path: %v", err)
	}
	other := filepath.Join(t.TempDir(), "Dockerfile")
	os.WriteFile(other, []byte("FROM debian\n"), 0o644)
	if _, err := readDockerfile(other); err == nil || !strings.Contains(err.Error(), "ARG BASE") {
		t.Fatalf("a Dockerfile ignoring the base must be refused: %v", err)
	}
}
