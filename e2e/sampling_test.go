//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/flamegraph"
	"github.com/lnbench/lnbench/record/traces"
)

// TestIterationSampling profiles real lnd nodes over exactly each measured
// iteration and checks the windows render LND's own packages.
func TestIterationSampling(t *testing.T) {
	t.Parallel() // local processes on free ports, own work and artifacts folders
	binaries(t)
	bin := buildCLI(t)
	arts := artifactsDir(t)
	scen := filepath.Join(t.TempDir(), "s.yml")
	os.WriteFile(scen, []byte(`name: Sampled
topology: AlicePaysBob
params: {Concurrency: [5], TotalPayments: [80]}
job: {WarmupCount: 1, IterationCount: 2}
sampling: {mode: iteration}
`), 0o644)
	cmd := exec.Command(bin, "run", scen, "--backend", "local", "--artifacts", arts)
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	dirs, _ := filepath.Glob(filepath.Join(arts, "*-Sampled"))
	if len(dirs) != 1 {
		t.Fatalf("artifacts: %v", dirs)
	}
	dir := dirs[0]
	ws, err := traces.ReadIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	// 2 measured iterations × 2 actors; the warm-up is not sampled.
	if len(ws) != 4 {
		t.Fatalf("%d windows, want 4: %+v", len(ws), ws)
	}
	checkWindows(t, dir, ws)
	for _, f := range []string{"Alice_traces", "Bob_traces", "flamegraphs.html", "flamegraphs-timeline.svg", "Alice_traces/diff-first-last.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
}

// TestSoak runs a short soak with periodic sampling: drift verdict,
// profiler cost and hot frames are reported.
func TestSoak(t *testing.T) {
	t.Parallel() // local processes on free ports, own work and artifacts folders
	binaries(t)
	bin := buildCLI(t)
	arts := artifactsDir(t)
	cmd := exec.Command(bin, "soak", "--backend", "local", "--artifacts", arts, "--duration", "40s", "--every", "10s", "--window", "4s")
	cmd.Dir = repoRoot(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	dirs, _ := filepath.Glob(filepath.Join(arts, "*-soak"))
	if len(dirs) != 1 {
		t.Fatalf("artifacts: %v\n%s", dirs, out)
	}
	md, err := os.ReadFile(filepath.Join(dirs[0], "soak.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Verdict: **", "payments/s per 1000 payments", "profiler cost:", "alice: hottest frames", "bob: hottest frames"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("soak.md lacks %q:\n%s", want, md)
		}
	}
	ws, _ := traces.ReadIndex(dirs[0])
	if len(ws) < 4 {
		t.Errorf("%d periodic windows in 40 s at 10 s period for 2 actors", len(ws))
	}
}

// checkWindows checks each indexed window: measured (not warm-up), with
// samples, its SVG showing LND's packages, its pprof matching the index.
func checkWindows(t *testing.T, dir string, ws []traces.Window) {
	t.Helper()
	for _, w := range ws {
		if strings.Contains(w.Label, "warmup") || w.Samples == 0 {
			t.Errorf("bad window %+v", w)
		}
		svg, err := os.ReadFile(filepath.Join(dir, w.SVG))
		if err != nil || !strings.Contains(string(svg), "github.com/lightningnetwork/lnd/") {
			t.Errorf("%s does not show LND's packages (%v)", w.SVG, err)
		}
		f, err := flamegraph.ReadFile(filepath.Join(dir, w.Profile))
		if err != nil || f.Total() != w.Samples {
			t.Errorf("pprof %s: %v, %d samples vs index %d", w.Profile, err, f.Total(), w.Samples)
		}
	}
}
