//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/report"
)

// iterationSpan is when one spec's measured iteration ran.
type iterationSpan struct {
	spec     string
	index    int
	from, to time.Time
}

// measuredSpans reads payments.jsonl's measured iterations, by start.
func measuredSpans(t *testing.T, dir string) []iterationSpan {
	t.Helper()
	return phaseSpans(t, dir, result.Measure)
}

// phaseSpans are the iterations of one phase of the run in dir, in start order.
func phaseSpans(t *testing.T, dir, phase string) []iterationSpan {
	t.Helper()
	recs, err := result.ReadFile(filepath.Join(dir, "payments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]*iterationSpan{}
	for _, r := range recs {
		if r.Phase != phase {
			continue
		}
		spec := strings.TrimPrefix(strings.Split(r.Case, "/")[0], "Node=")
		key := spec + "/" + r.Case + "/" + string(rune('0'+r.Iteration))
		sp := byKey[key]
		if sp == nil {
			sp = &iterationSpan{spec: spec, index: r.Iteration, from: r.Start, to: r.End}
			byKey[key] = sp
		}
		if r.Start.Before(sp.from) {
			sp.from = r.Start
		}
		if r.End.After(sp.to) {
			sp.to = r.End
		}
	}
	var out []iterationSpan
	for _, sp := range byKey {
		out = append(out, *sp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].from.Before(out[j].from) })
	return out
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInterleavedCalibration runs `lnbench calibrate` in the interleaved
// design on real lnd and btcd: both networks of a launch pair up at once,
// measured iterations alternating spec by spec, the waiting network's CPU
// reported, and the A/A verdicts counted in calibration.md/json.
func TestInterleavedCalibration(t *testing.T) {
	binaries(t)
	t.Parallel()
	dir := runCLI(t, "calibrate", "--node", "lnd@v0.21.0-beta", "--design", "interleaved", "--pairs", "2", "--window", "2",
		"--param", "Concurrency=5", "--param", "TotalPayments=20", "--job", "WarmupCount=1", "--job", "IterationCount=4")
	rep := readSummary(t, dir)
	if d := rep.Design; d == nil || d.Name != report.DesignInterleaved || d.Order != "abba" || d.Sequence() != "a b | b a" {
		t.Fatalf("design %+v", rep.Design)
	}
	spans := measuredSpans(t, dir)
	if len(spans) != 16 {
		t.Fatalf("%d measured iterations, want 2 pairs × 2 specs × 4", len(spans))
	}
	for i := 0; i+1 < len(spans); i += 2 {
		if spans[i].spec == spans[i+1].spec {
			t.Errorf("iterations %d and %d both ran %s: want one per spec in each round", i, i+1, spans[i].spec)
		}
		if spans[i+1].from.Before(spans[i].to) {
			t.Errorf("interleaved iterations overlap: %+v and %+v", spans[i], spans[i+1])
		}
	}
	md := readFile(t, dir, "summary.md")
	for _, want := range []string{"Design: interleaved", "idle: while the other network of its launch pair measured"} {
		if !strings.Contains(md, want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	var cal report.Calibration
	if err := json.Unmarshal([]byte(readFile(t, dir, "calibration.json")), &cal); err != nil {
		t.Fatal(err)
	}
	if cal.Comparisons != 1 || cal.Pairs != 2 || cal.Design != report.DesignInterleaved || cal.False+cal.Same+cal.Unknown != 1 || cal.RMSLogRatio <= 0 {
		t.Errorf("calibration %+v", cal)
	}
	if !strings.Contains(readFile(t, dir, "calibration.md"), "False-positive rate:") {
		t.Error("calibration.md has no rate")
	}
}

// TestDuetRun measures two specs of one build in the duet design, with a
// CPU set per network (--duet-cpus split: one CPU each on a 2-core
// machine): each measured iteration of a runs at the same moment as b's,
// and the verdict with its launch-level interval and MDE is in every
// format. The kernel's own account of every lnd and btcd the run started
// (Cpus_allowed_list, read here while it runs) must show one CPU each and
// both CPUs used, and the design must record the sets.
func TestDuetRun(t *testing.T) {
	binaries(t)
	t.Parallel()
	testsupport.RequireOrSkip(t, runtime.NumCPU() >= 2, fmt.Sprintf("needs 2 CPUs to split (%d)", runtime.NumCPU()))
	masks := map[string]string{} // command line → Cpus_allowed_list of nodes and chains
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			for _, pid := range nodeProcesses() {
				if m := allowedList(pid); m != "" {
					masks[cmdline(pid)] = m
				}
			}
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
			}
		}
	}()
	dir := runCLI(t, "run", "--node", "a=lnd@v0.21.0-beta", "--node", "b=lnd@v0.21.0-beta", "--baseline", "a", "--design", "duet", "--duet-cpus", "split",
		"--param", "Concurrency=5", "--param", "TotalPayments=20", "--job", "LaunchCount=2", "--job", "WarmupCount=1", "--job", "IterationCount=3")
	close(stop)
	<-done
	rep := readSummary(t, dir)
	d := rep.Design
	if d == nil || d.Name != report.DesignDuet || !strings.HasPrefix(d.CPUs, "split: network 1 of each round on CPUs 0, network 2 of each round on CPUs 1") || len(d.CPUSets) != 4 {
		t.Fatalf("design %+v", rep.Design)
	}
	// This run's processes only (the tests run in parallel): their data
	// dirs lie under the run's work folder, named by its id. A whole path
	// element: a run started in the same second by a parallel test is
	// "<id>-2", which contains this id.
	seen, procs := map[string]bool{}, 0
	for cmd, m := range masks {
		if strings.Contains(cmd, "/"+rep.RunID+"/") {
			seen[m] = true
			procs++
		}
	}
	var sets []string
	for m := range seen {
		sets = append(sets, m)
	}
	sort.Strings(sets)
	t.Logf("design: %s; sets %+v; the kernel saw %d processes on %v", d.CPUs, d.CPUSets, procs, sets)
	if strings.Join(sets, " ") != "0 1" || procs < 6 {
		t.Errorf("the run's %d lnd and btcd processes ran on CPU sets %v, want each on one CPU, both CPUs used (2 pairs × 2 networks × 3 actors)", procs, sets)
	}
	spans := measuredSpans(t, dir)
	if len(spans) != 12 {
		t.Fatalf("%d measured iterations, want 2 pairs × 2 specs × 3", len(spans))
	}
	for i := 0; i+1 < len(spans); i += 2 {
		a, b := spans[i], spans[i+1]
		if a.spec == b.spec || a.index != b.index || b.from.After(a.to) {
			t.Errorf("iterations %+v and %+v: want a's and b's same iteration at the same time", a, b)
		}
	}
	var ratio *report.Ratio
	for _, c := range rep.Cases {
		if c.Node == "b" {
			ratio = c.Ratio
		}
	}
	if ratio == nil || ratio.Level != report.LevelLaunches || ratio.NNew != 2 || ratio.Low <= 0 || ratio.High < ratio.Low || ratio.MDE <= 0 || ratio.Verdict == "" {
		t.Fatalf("b's ratio %+v", ratio)
	}
	for _, f := range []string{"summary.md", "summary.csv", "report.html"} {
		text := readFile(t, dir, f)
		if !strings.Contains(text, ratio.Verdict) || !strings.Contains(text, "MDE") {
			t.Errorf("%s lacks the verdict %q or the MDE", f, ratio.Verdict)
		}
	}
	if !strings.Contains(readFile(t, dir, "report.html"), "Design: duet") {
		t.Error("report.html does not name the design")
	}
}

// allowedList is a process's Cpus_allowed_list as the kernel reports it.
func allowedList(pid string) string {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// cmdline is a process's command line, arguments space-separated.
func cmdline(pid string) string {
	b, _ := os.ReadFile("/proc/" + pid + "/cmdline")
	return strings.ReplaceAll(string(b), "\x00", " ")
}

// TestDuetSoloRun measures one build against itself in the duet-solo
// design on real nodes: per launch round, the duet iterations (phase
// duet) of the two networks overlap pairwise, then the solo iterations run
// one at a time, none overlapping, none before the duet half ended; each
// launch has both halves' figures and the verdict says which half gave
// its direction and which its size.
func TestDuetSoloRun(t *testing.T) {
	binaries(t)
	t.Parallel()
	dir := runCLI(t, "run", "--node", "a=lnd@v0.21.0-beta", "--node", "b=lnd@v0.21.0-beta", "--baseline", "a", "--design", "duet-solo",
		"--param", "Concurrency=5", "--param", "TotalPayments=20", "--job", "LaunchCount=2", "--job", "WarmupCount=1", "--job", "IterationCount=4")
	rep := readSummary(t, dir)
	if d := rep.Design; d == nil || d.Name != report.DesignDuetSolo || !strings.Contains(d.Iterations, "2 iterations in duet") {
		t.Fatalf("design %+v", rep.Design)
	}
	duets, solos := phaseSpans(t, dir, result.Duet), measuredSpans(t, dir)
	if len(duets) != 8 || len(solos) != 8 {
		t.Fatalf("%d duet and %d solo iterations, want 2 rounds × 2 specs × 2 each", len(duets), len(solos))
	}
	for i := 0; i+1 < len(duets); i += 2 {
		if a, b := duets[i], duets[i+1]; a.spec == b.spec || b.from.After(a.to) {
			t.Errorf("duet iterations %+v and %+v: want one per spec at the same time", a, b)
		}
	}
	for i := 1; i < len(solos); i++ {
		if solos[i].from.Before(solos[i-1].to) {
			t.Errorf("solo iterations overlap: %+v and %+v", solos[i-1], solos[i])
		}
	}
	for round := 0; round < 2; round++ {
		if solos[4*round].from.Before(duets[4*round+3].to) {
			t.Errorf("round %d: a solo iteration began before the duet half ended", round+1)
		}
	}
	for _, c := range rep.Cases {
		if len(c.Launches) != 2 || c.Launches[0].DuetIterations != 2 || c.Launches[0].DuetMeanSeconds <= 0 || c.Launches[0].Iterations != 2 {
			t.Errorf("%s launches %+v, want 2 with 2 duet and 2 solo iterations each", c.ID, c.Launches)
		}
		if c.Node == "b" && (c.Ratio == nil || c.Ratio.Duet == nil || c.Ratio.Duet.Of <= 0) {
			t.Errorf("b's ratio %+v has no duet half", c.Ratio)
		}
	}
	if md := readFile(t, dir, "summary.md"); !strings.Contains(md, "size from the solo half") || !strings.Contains(md, "Design: duet-solo") {
		t.Errorf("summary.md does not say which half gave what, or the design")
	}
}
