//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/flamegraph"
	"github.com/lnbench/lnbench/traces"
)

// TestCLNIterationSampling runs AlicePaysBob on two CLN nodes with every
// measured iteration profiled (local backend: perf over each lightningd's
// process tree, served in-process): each window's stacks start at the CLN
// process they ran in, lightningd and lightning_channeld among them, and
// channeld's time is in named C functions of its own, not addresses.
func TestCLNIterationSampling(t *testing.T) {
	t.Parallel()
	spec := clnSpec(t)
	dir := t.TempDir()
	scen := filepath.Join(dir, "scenario.yml")
	os.WriteFile(scen, []byte(`name: CLNSampled
topology: AlicePaysBob
params: {Concurrency: [4], TotalPayments: [150]}
job: {WarmupCount: 1, IterationCount: 2}
sampling: {mode: iteration}
`), 0o644)
	run := runCLI(t, "run", scen, "--node", "cln="+spec)
	ws, err := traces.ReadIndex(run)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 4 { // 2 measured iterations × 2 actors
		t.Fatalf("%d windows, want 4: %+v", len(ws), ws)
	}
	address := regexp.MustCompile(`^(0x[0-9a-f]+|\[.*\])$`)
	for _, actor := range []string{"alice", "bob"} {
		var all flamegraph.Folded
		for _, w := range ws {
			if w.Actor != actor {
				continue
			}
			if w.Samples == 0 || strings.Contains(w.Label, "warmup") {
				t.Errorf("bad window %+v", w)
			}
			f, err := flamegraph.ReadFile(filepath.Join(run, w.Profile))
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, f...)
			if _, err := os.Stat(filepath.Join(run, w.SVG)); err != nil {
				t.Error(err)
			}
		}
		roots := map[string]int64{}
		var channeldOwn []string
		for _, s := range all {
			roots[s.Frames[0]] += s.Count
			if s.Frames[0] != "lightning_channeld" {
				continue
			}
			for _, fr := range s.Frames[1:] {
				if !address.MatchString(fr) && (strings.Contains(fr, "channel") || strings.Contains(fr, "htlc")) {
					channeldOwn = append(channeldOwn, fr)
				}
			}
		}
		t.Logf("%s: samples per process %v; channeld functions e.g. %v", actor, roots, first(channeldOwn, 5))
		if roots["lightningd"] == 0 || roots["lightning_channeld"] == 0 {
			t.Errorf("%s: processes %v, want lightningd and lightning_channeld", actor, roots)
		}
		if len(channeldOwn) == 0 {
			t.Errorf("%s: no named channel/htlc function in lightning_channeld's stacks", actor)
		}
	}
	for _, f := range []string{"flamegraphs.html", "flamegraphs-timeline.svg", "Alice_traces/diff-first-last.svg"} {
		if _, err := os.Stat(filepath.Join(run, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
}

func first(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
