//go:build e2e

package e2e

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/flamegraph"
	"github.com/lnbench/lnbench/perfprof"
	"github.com/lnbench/lnbench/record/traces"
	"github.com/lnbench/lnbench/usage"
)

// TestCLNIterationSampling runs AlicePaysBob on two CLN nodes with every
// measured iteration profiled (local backend: perf over each lightningd's
// process tree, served in-process): each window's stacks start at the CLN
// process they ran in, lightningd and lightning_channeld among them, and
// channeld's time is in named C functions of its own, not addresses. The
// samples account for the node's CPU time as the resource sampler read it
// from /proc (99 a CPU second), so no part of the iterations went
// unprofiled, the short-lived children's among them.
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
	cpu := cpuSeconds(t, run)
	samples, err := usage.Load(filepath.Join(run, usage.FileName))
	if err != nil {
		t.Fatal(err)
	}
	// bcli's bitcoin-cli calls (both nodes) and askrene's route-finding
	// children (the payer's) live under one sampling period: their CPU
	// is in the profiles as UnsampledChildren under the parent that
	// waited for them.
	unsampledUnder := map[string][]string{"alice": {"bcli", "cln-askrene"}, "bob": {"bcli"}}
	for _, actor := range []string{"alice", "bob"} {
		t.Logf("%s: %.1f CPU s over the measured iterations (resources.csv)", actor, cpu[actor])
		all := checkCLNProfiles(t, run, ws, actor, cpuOverWindows(samples, ws, actor))
		under := map[string]int64{}
		for _, s := range all {
			if len(s.Frames) == 2 && s.Frames[1] == perfprof.UnsampledChildren {
				under[s.Frames[0]] += s.Count
			}
		}
		t.Logf("%s: unsampled children's samples by parent %v", actor, under)
		for _, parent := range unsampledUnder[actor] {
			if under[parent] == 0 {
				t.Errorf("%s: no %q samples under %s: %v", actor, perfprof.UnsampledChildren, parent, under)
			}
		}
	}
	for _, f := range []string{"flamegraphs.html", "flamegraphs-timeline.svg", "Alice_traces/diff-first-last.svg"} {
		if _, err := os.Stat(filepath.Join(run, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
}

// cpuSeconds reads each actor's CPU time over the measured iterations
// from resources.csv.
func cpuSeconds(t *testing.T, run string) map[string]float64 {
	t.Helper()
	f, err := os.Open(filepath.Join(run, "resources.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("resources.csv: %v", err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	out := map[string]float64{}
	for _, r := range rows[1:] {
		v, err := strconv.ParseFloat(r[col["CPUSeconds"]], 64)
		if err != nil {
			t.Fatalf("resources.csv CPUSeconds %q", r[col["CPUSeconds"]])
		}
		out[r[col["Actor"]]] = v
	}
	return out
}

// cpuOverWindows is the actor's CPU time, read by the resource sampler,
// over its profile windows' own spans: a window is cut from whole slices
// and lies up to half a slice off its iteration at each end, so on short
// iterations the iterations' CPU (resources.csv) is not the profiled time's.
// The cumulative counter is interpolated between the samples around each
// end; 0 when the stream cannot bracket a window.
func cpuOverWindows(samples []usage.Sample, ws []traces.Window, actor string) float64 {
	var at []time.Time
	var secs []float64
	for _, s := range samples {
		if s.Actor == actor {
			at, secs = append(at, s.Time), append(secs, s.CPUSeconds())
		}
	}
	var iv [][2]time.Time
	for _, w := range ws {
		if w.Actor != actor {
			continue
		}
		if len(at) < 2 || w.Start.Before(at[0]) || w.End.After(at[len(at)-1]) {
			return 0
		}
		iv = append(iv, [2]time.Time{w.Start, w.End})
	}
	return cpuOver(at, secs, iv)
}

func first(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// checkCLNProfiles checks a CLN actor's windows: lightningd and
// lightning_channeld among the root frames, named channel/htlc functions
// in channeld's stacks, and samples accounting for the CPU time the
// resource sampler read (at perf's 99 Hz) unless cpuSec is 0.
func checkCLNProfiles(t *testing.T, run string, ws []traces.Window, actor string, cpuSec float64) flamegraph.Folded {
	t.Helper()
	address := regexp.MustCompile(`^(0x[0-9a-f]+|\[.*\])$`)
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
	var channeldOwn, channeldNamed []string
	for _, s := range all {
		roots[s.Frames[0]] += s.Count
		if s.Frames[0] != "lightning_channeld" {
			continue
		}
		for _, fr := range s.Frames[1:] {
			if address.MatchString(fr) {
				continue
			}
			channeldNamed = append(channeldNamed, fr)
			if strings.Contains(fr, "channel") || strings.Contains(fr, "htlc") {
				channeldOwn = append(channeldOwn, fr)
			}
		}
	}
	t.Logf("%s: samples per process %v; channeld functions e.g. %v", actor, roots, first(channeldOwn, 5))
	if roots["lightningd"] == 0 || roots["lightning_channeld"] == 0 {
		t.Errorf("%s: processes %v, want lightningd and lightning_channeld", actor, roots)
	}
	// Every stack of channeld must be symbolized in part; with a few
	// samples all of them may land in a library (secp256k1, libc), so
	// channeld's own channel/htlc functions are asked for from 30 on.
	if len(channeldNamed) == 0 {
		t.Errorf("%s: no symbolized frame in lightning_channeld's stacks", actor)
	}
	if len(channeldOwn) == 0 && roots["lightning_channeld"] >= 30 {
		t.Errorf("%s: no named channel/htlc function in %d samples of lightning_channeld", actor, roots["lightning_channeld"])
	}
	if roots["perf"] > 0 || roots["lnbench"] > 0 {
		t.Errorf("%s: the profiler profiled itself as part of the node: %v", actor, roots)
	}
	profiled := float64(all.Total()) / 99
	for _, w := range ws {
		if a, ok := w.Alignment(); ok && w.Actor == actor {
			t.Logf("%s %s: %s", actor, w.Label, a)
		}
	}
	t.Logf("%s: %.1f CPU s in samples, %.1f CPU s read by the resource sampler over the windows", actor, profiled, cpuSec)
	if cpuSec == 0 {
		return all // a container's cgroup counts perf's own CPU too, or the stream did not bracket a window
	}
	// Measured 0.94/0.90 and 0.97/0.97 (alice/bob) beside a full test run,
	// 0.87/0.93 alone on the quiet machine; 0.75
	// and 0.84 here (0.65 on CI) before the profiles counted the children
	// perf cannot sample (perfprof.UnsampledChildren): 18% of alice's CPU by perf
	// stat over 10 s, 22% of it in this test.
	// 0.8 fails a tree left partly unprofiled (those children, a subdaemon).
	if r := profiled / cpuSec; !(r > 0.8 && r < 1.2) {
		t.Errorf("%s: samples account for %.1f CPU s, the resource sampler read %.1f s", actor, profiled, cpuSec)
	}
	return all
}
