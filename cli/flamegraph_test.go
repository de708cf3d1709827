package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/traces"
)

// writeRun makes an artifacts folder with one folded window per actor.
func writeRun(t *testing.T, stacks map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	var idx bytes.Buffer
	for actor, folded := range stacks {
		rel := filepath.Join(traces.Dir(actor), "000001s.folded")
		os.MkdirAll(filepath.Join(dir, traces.Dir(actor)), 0o755)
		os.WriteFile(filepath.Join(dir, rel), []byte(folded), 0o644)
		idx.WriteString(`{"actor":"` + actor + `","folded":"` + rel + `","start":"` + time.Now().Format(time.RFC3339Nano) + `"}` + "\n")
	}
	os.WriteFile(filepath.Join(dir, "traces.jsonl"), idx.Bytes(), 0o644)
	return dir
}

func TestFlamegraphDiffOfTwoRuns(t *testing.T) {
	a := writeRun(t, map[string]string{"alice": "main;pay 10\nmain;log 10\n", "bob": "main;settle 5\n"})
	b := writeRun(t, map[string]string{"alice": "main;pay 10\nmain;log 30\n", "bob": "main;settle 5\n"})
	out := filepath.Join(t.TempDir(), "d.svg")
	var so, se bytes.Buffer
	if err := Run(context.Background(), &so, &se, []string{"flamegraph", "--diff", a, b, "--actor", "alice", "-o", out}); err != nil {
		t.Fatal(err)
	}
	svg, _ := os.ReadFile(out)
	if !strings.Contains(string(svg), "log") || strings.Contains(string(svg), "settle") {
		t.Fatalf("diff of alice's windows wrong:\n%.400s", svg)
	}
	err := Run(context.Background(), &so, &se, []string{"flamegraph", a, "--actor", "carol", "-o", out})
	if err == nil || !strings.Contains(err.Error(), "actors: alice, bob") {
		t.Fatalf("unknown actor: %v", err)
	}
}
