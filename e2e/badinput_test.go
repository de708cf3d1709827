//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/cli"
)

// TestCorruptCache: a cached binary that no longer matches its manifest is
// reported with the fix.
func TestCorruptCache(t *testing.T) {
	bins := binaries(t)
	cache := t.TempDir()
	dst := filepath.Join(cache, "bin", filepath.Base(bins.Dir))
	os.MkdirAll(dst, 0o755)
	for _, f := range []string{"manifest.json", "lnd", "lncli", "btcd", "btcctl"} {
		data, err := os.ReadFile(filepath.Join(bins.Dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "lncli" {
			data = data[:len(data)/2]
		}
		os.WriteFile(filepath.Join(dst, f), data, 0o755)
	}
	wd, _ := os.Getwd()
	os.Chdir(repoRoot(t))
	defer os.Chdir(wd)
	var out, errb bytes.Buffer
	err := cli.Run(context.Background(), &out, &errb, []string{"run", "--backend", "local", "--cache", cache, "--artifacts", t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "corrupt binary lncli") || !strings.Contains(err.Error(), "lnbench build") {
		t.Fatalf("got %v", err)
	}
}

// TestNodeStartTimeout: a node that does not start in time is reported with
// its log tail, the exit is non-zero and nothing is left running.
func TestNodeStartTimeout(t *testing.T) {
	t.Parallel() // local processes on free ports, own work and artifacts folders
	binaries(t)
	bin := buildCLI(t)
	tmp, arts := t.TempDir(), artifactsDir(t)
	cmd := exec.Command(bin, "run", "--backend", "local", "--artifacts", arts, "--start-timeout", "1ms", "--quick")
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("exit 0:\n%s", out)
	}
	if !strings.Contains(string(out), "did not start in time") {
		t.Fatalf("no start-timeout message:\n%s", out)
	}
	// Children are reaped before lnbench exits; the poll only absorbs /proc
	// lagging behind, so it is short.
	if !poll(2*time.Second, 50*time.Millisecond, func() bool { return len(processesMentioning(tmp)) == 0 }) {
		t.Fatalf("left running: %v", processesMentioning(tmp))
	}
}
