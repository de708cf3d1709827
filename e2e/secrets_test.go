//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// artifactsDir is a temporary artifacts root whose every file is scanned
// for secrets when the test ends: whatever the suite writes, no macaroon,
// TLS key or RPC password leaves the run's work folder.
func artifactsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	// Registered after TempDir's own cleanup, so it runs first.
	t.Cleanup(func() {
		for _, p := range scanArtifacts(dir) {
			t.Errorf("artifacts leak: %s", p)
		}
	})
	return dir
}

var (
	secretFile    = regexp.MustCompile(`(\.macaroon|tls\.key|rpc\.key|wallet\.db|\.key)$`)
	passwordArg   = regexp.MustCompile(`rpcpass(?:word)?[=:]\s*"?([^"\s]+)`)
	publishedPort = regexp.MustCompile(`^\s*-\s*"?([^":\s]*):[^"]*"?\s*$`)
)

// scanArtifacts lists every secret found under dir: key or macaroon files,
// PEM private keys, macaroons in binary or hex, RPC passwords that are not
// redacted, and compose ports published beyond loopback.
func scanArtifacts(dir string) []string {
	var found []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		if secretFile.MatchString(d.Name()) {
			found = append(found, rel+": a key, macaroon or wallet file")
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		switch {
		case bytes.Contains(data, []byte("PRIVATE KEY-----")):
			found = append(found, rel+": a PEM private key")
		case bytes.Contains(data, []byte("\x02\x01\x03lnd")), bytes.Contains(bytes.ToLower(data), []byte("0201036c6e64")):
			found = append(found, rel+": a macaroon")
		}
		for _, m := range passwordArg.FindAllSubmatch(data, -1) {
			v := string(m[1])
			if !strings.HasPrefix(v, "<redacted>") && !strings.HasPrefix(v, "${") && v != "lnbench" {
				found = append(found, fmt.Sprintf("%s: an RPC password (%.4s…)", rel, v))
			}
		}
		if strings.HasPrefix(d.Name(), "docker-compose") || strings.HasPrefix(d.Name(), "stack") {
			found = append(found, nonLoopbackPorts(rel, data)...)
		}
		return nil
	})
	return found
}

// nonLoopbackPorts reads the ports: lists of a compose file: every
// published port names 127.0.0.1 or a test host of 198.18.0.0/15.
func nonLoopbackPorts(rel string, data []byte) []string {
	var found []string
	inPorts := false
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasSuffix(trimmed, ":") {
			inPorts = trimmed == "ports:"
			continue
		}
		if !inPorts || !strings.HasPrefix(trimmed, "-") {
			continue
		}
		m := publishedPort.FindStringSubmatch(line)
		if m == nil || (m[1] != "127.0.0.1" && !strings.HasPrefix(m[1], "198.18.") && !strings.HasPrefix(m[1], "198.19.")) {
			found = append(found, fmt.Sprintf("%s: port %s is not bound to loopback or a test host", rel, trimmed))
		}
	}
	return found
}

// TestScanArtifactsFindsEachKindOfSecret: the scanner is what keeps the
// suite honest, so it is tested on planted secrets.
func TestScanArtifactsFindsEachKindOfSecret(t *testing.T) {
	t.Parallel() // reads files only
	dir := t.TempDir()
	plant := func(name, body string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	plant("ok/args.txt", "--btcd.rpcpass=<redacted>\n--rpcpass=${LNBENCH_RPCPASS:-lnbench}\n")
	plant("ok/docker-compose.yml", "services:\n  a:\n    ports:\n      - \"127.0.0.1::10009\"\n    user: \"1000:1000\"\n")
	if got := scanArtifacts(dir); len(got) != 0 {
		t.Fatalf("clean folder reported: %v", got)
	}
	plant("n/alice/admin.macaroon", "x")
	plant("n/log.txt", "cert -----BEGIN EC PRIVATE KEY-----")
	plant("n/mac.txt", "macaroon 0201036C6E6402F801")
	plant("n/args.txt", "--rpcpass=9f8e7d6c5b4a")
	plant("n/docker-compose.yml", "services:\n  a:\n    ports:\n      - \"0.0.0.0:10009:10009\"\n      - \"10010\"\n")
	got := strings.Join(scanArtifacts(dir), "\n")
	for _, want := range []string{"admin.macaroon: a key", "log.txt: a PEM private key", "mac.txt: a macaroon", "args.txt: an RPC password (9f8e", `port - "0.0.0.0:10009:10009"`, `port - "10010"`} {
		if !strings.Contains(got, want) {
			t.Errorf("scanner missed %q; found:\n%s", want, got)
		}
	}
}
