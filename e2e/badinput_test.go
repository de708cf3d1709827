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

	"github.com/lnbench/lnbench/internal/cli"
)

// TestBadInput: each mistake gives one clear line naming the problem and the
// fix, a non-zero exit, and nothing left running.
func TestBadInput(t *testing.T) {
	root := repoRoot(t)
	tmp := t.TempDir()
	badScenario := filepath.Join(tmp, "bad.yml")
	os.WriteFile(badScenario, []byte("name: X\ntopology: AlicePaysBob\nparams:\n  Concurrency: [ten]\n"), 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"run", "--concurrency=3"}, "unknown flag: --concurrency"},
		{"unknown param", []string{"run", "--param", "Speed=3"}, `param "Speed" is unknown; known params: Concurrency`},
		{"non-positive param", []string{"run", "--param", "Concurrency=0"}, `param Concurrency="0": must be a positive integer`},
		{"non-integer param", []string{"run", "--param", "TotalPayments=1e3"}, `must be a positive integer`},
		{"bad scenario value", []string{"run", badScenario}, `Concurrency="ten": must be a positive integer`},
		{"missing scenario", []string{"run", filepath.Join(tmp, "nope.yml")}, "scenario file: open"},
		{"unknown release", []string{"run", "--backend", "local", "--node", "lnd@v0.0.1-beta"}, "node spec v0.0.1-beta: no build module for lnd v0.0.1-beta"},
		{"bad backend", []string{"run", "--backend", "k8s"}, `--backend "k8s": use auto, compose or local`},
	}
	wd, _ := os.Getwd()
	os.Chdir(root)
	defer os.Chdir(wd)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := cli.Run(context.Background(), &out, &errb, append(tt.args, "--artifacts", filepath.Join(tmp, "arts")))
			if err == nil {
				t.Fatalf("no error; stdout:\n%s", out.String())
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q, want containing %q", err, tt.want)
			}
			if strings.Count(strings.TrimSpace(err.Error()), "\n") > 0 {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
	if entries, _ := os.ReadDir(filepath.Join(tmp, "arts")); len(entries) > 0 {
		t.Errorf("bad input started a run: %v", entries)
	}
}

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
