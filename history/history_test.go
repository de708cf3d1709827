package history

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/changepoint"
	"github.com/lnbench/lnbench/internal/envinfo"
	"github.com/lnbench/lnbench/internal/jsonl"
	"github.com/lnbench/lnbench/nodespec"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage"
)

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// points is a series of n runs of one build, payments/s around level with
// 2% noise, the level times (1+step) from index at on (at < 0: flat).
func points(n, at int, step float64, seed uint64) []Point {
	rng := rand.New(rand.NewPCG(seed, 5))
	var ps []Point
	for i := 0; i < n; i++ {
		v := 100 * (1 + 0.02*rng.NormFloat64())
		if at >= 0 && i >= at {
			v *= 1 + step
		}
		ps = append(ps, Point{RunID: fmt.Sprintf("run%d", i), Started: t0.Add(time.Duration(i) * time.Hour), Scenario: "AlicePaysBob",
			Case: "Concurrency=5", Build: "lnd@src:/src/lnd", Clone: "/src/lnd", Commit: fmt.Sprintf("%040d", i), Machine: "m1",
			PaymentsPerSec: v, Env: Env{DiskSyncsPerSec: 500, OutsideCores: 0.1, StealShare: -1, HostCores: 2}})
	}
	return ps
}

func TestAPlantedStepIsTheOneChangePoint(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		series := Build(points(8, 4, -0.10, seed), Options{})
		if len(series) != 1 || len(series[0].Throughput.Changes) != 1 || series[0].Throughput.Changes[0].Index != 4 {
			t.Fatalf("seed %d: changes %+v", seed, series[0].Throughput.Changes)
		}
		c := series[0].Throughput.Changes[0]
		if c.Kind != "code" || !strings.Contains(c.Bisect, "--good 000000000000 --bad 000000000000") || !strings.Contains(c.Bisect, "--case Concurrency=5") {
			t.Errorf("seed %d: change %+v", seed, c)
		}
	}
}

func TestAFlatSeriesHasNoChangePoint(t *testing.T) {
	fired := 0
	for seed := uint64(1); seed <= 20; seed++ {
		if s := Build(points(8, -1, 0, seed), Options{}); len(s[0].Throughput.Changes) > 0 {
			fired++
		}
	}
	if fired > 1 {
		t.Fatalf("%d of 20 flat series of 8 runs had a change point", fired)
	}
}

func TestAnEnvironmentChangeIsLabelled(t *testing.T) {
	ps := points(8, 4, -0.15, 3)
	for i := 4; i < 8; i++ {
		ps[i].Env.DiskSyncsPerSec = 230
	}
	s := Build(ps, Options{})[0]
	if c := s.Throughput.Changes; len(c) != 1 || c[0].Kind != "environment" || !strings.Contains(c[0].Why, "disk sync ceiling 500 → 230") {
		t.Fatalf("changes %+v", c)
	}
}

func TestSeriesSplitByMachineAndOrderedByCommit(t *testing.T) {
	ps := points(6, -1, 0, 1)
	ps[5].Machine = "m2"
	// Runs made out of commit order: commit 0 last in time.
	ps[0].Started = t0.Add(100 * time.Hour)
	order := func(string) map[string]int {
		pos := map[string]int{}
		for i := 0; i < 6; i++ {
			pos[fmt.Sprintf("%040d", i)] = i
		}
		return pos
	}
	series := Build(ps, Options{CommitOrder: order})
	if len(series) != 2 {
		t.Fatalf("%d series, want one per machine", len(series))
	}
	if s := series[0]; s.Order != "commit" || s.Points[0].Commit != ps[0].Commit {
		t.Errorf("order %s, first %s", s.Order, s.Points[0].Commit)
	}
	if mixed := Build(ps, Options{MixMachines: true}); len(mixed) != 1 || mixed[0].Order != "time" {
		t.Errorf("mixed: %d series, order %s", len(mixed), mixed[0].Order)
	}
}

func TestRelativeToTheControlWhenEveryPointHasIt(t *testing.T) {
	ps := points(8, -1, 0, 2)
	for i := range ps {
		ps[i].Control, ps[i].VsControl = "release (lnd@v0.21.0-beta)", 1.0
		ps[i].PaymentsPerSec *= 1 + 0.3*float64(i%2) // the machine swings; the ratio does not
	}
	s := Build(ps, Options{})[0]
	if !strings.HasPrefix(s.Throughput.Metric, "payments/s relative to release") || len(s.Throughput.Changes) != 0 {
		t.Fatalf("metric %q changes %+v", s.Throughput.Metric, s.Throughput.Changes)
	}
	// No point has a latency ratio: that track stays absolute.
	if s.Latency.Relative || s.Latency.Metric != "p50 latency (ms)" {
		t.Errorf("latency metric %q", s.Latency.Metric)
	}
}

// writeRun writes an artifacts folder as the runner would: its manifest
// and payments of one case whose iterations take about perPayment each.
func writeRun(t *testing.T, root string, i int, commit string, perPayment time.Duration, syncs float64) {
	t.Helper()
	writeFolder(t, root, folder{i: i, syncs: syncs, specs: []spec{{label: "src", build: "lnd@src:/src/lnd#" + commit, commit: commit, perPayment: perPayment}}})
}

// folder is one run to write: its specs (a duet when there are two) and
// the disk probe's ceiling.
type folder struct {
	i     int
	specs []spec
	syncs float64
}

type spec struct {
	label, build, commit string
	baseline             bool
	perPayment           time.Duration
}

// writeFolder writes run f under root: run.json (a duet design for two
// specs, the first the baseline) and payments.jsonl of case Concurrency=1/
// TotalPayments=4, 6 iterations of 4 sequential payments of about
// perPayment each.
func writeFolder(t *testing.T, root string, f folder) string {
	t.Helper()
	dir := filepath.Join(root, fmt.Sprintf("202611%02dT120000Z-AlicePaysBob", f.i+1))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := scenario.Scenario{Name: "AlicePaysBob", Method: "RunAlicePaysBob", Topology: "AlicePaysBob",
		Params: []scenario.Param{{Name: "Concurrency", Values: []string{"1"}}, {Name: "TotalPayments", Values: []string{"4"}}},
		Job:    scenario.Job{LaunchCount: 1, WarmupCount: 0, IterationCount: 6, InvocationCount: 1},
		Node:   scenario.Node{Implementation: "lnd", Version: "src", DBBackend: "bbolt"}}
	started := t0.Add(time.Duration(f.i) * time.Hour)
	m := record.Manifest{RunID: filepath.Base(dir), Started: started, Finished: started.Add(time.Minute), Backend: "local",
		Env: envinfo.Env{OS: "Debian", CPU: "EPYC", Cores: 2, MemoryMiB: 24 << 10}}
	caseID := map[string]string{}
	for _, sp := range f.specs {
		impl, version, _ := strings.Cut(sp.build, "@")
		n := record.NodeInfo{Label: sp.label, Baseline: sp.baseline, Implementation: impl, Version: version, Build: sp.build, Commit: sp.commit}
		if sp.commit != "" {
			n.Version, n.Source, n.Subject = "src", "/src/lnd", "commit "+sp.commit
		}
		m.Nodes = append(m.Nodes, n)
		caseID[sp.label] = "Concurrency=1/TotalPayments=4"
		if len(f.specs) > 1 {
			s.Nodes = append(s.Nodes, nodespec.Spec{Label: sp.label, Build: sp.build, Baseline: sp.baseline})
			caseID[sp.label] = "Node=" + sp.label + "/" + caseID[sp.label]
			if sp.baseline {
				s.Baseline = sp.label
			}
		}
	}
	if len(f.specs) > 1 {
		var round []string
		for _, sp := range f.specs {
			round = append(round, sp.label)
		}
		m.Design = &record.Design{Name: scenario.DesignDuet, Order: "abba", Rounds: [][]string{round}}
	}
	m.Scenario = s
	if f.syncs > 0 {
		m.DiskProbes = append(m.DiskProbes, usageProbe(f.syncs))
	}
	if err := record.Write(dir, m); err != nil {
		t.Fatal(err)
	}
	w, err := jsonl.Create[result.Record](filepath.Join(dir, record.PaymentsFile), record.PaymentsFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range f.specs {
		at := started
		for it := 0; it < 6; it++ {
			for j := 0; j < 4; j++ {
				lat := sp.perPayment + time.Duration((it*7+j*3)%5)*time.Millisecond
				w.Write(result.Record{Case: caseID[sp.label], Phase: result.Measure, Iteration: it, Worker: 0, Seq: j,
					Payer: "alice", Payee: "bob", Mode: "invoice", Start: at, End: at.Add(lat), PaymentNs: int64(lat), Status: result.Succeeded, Hops: 1})
				at = at.Add(lat)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestHistoryOfEightRunFolders: eight artifacts folders, a 10% slowdown
// from the fifth commit on: the history names it as the one change point
// with the builds on either side; the same eight runs without it: none.
func TestHistoryOfEightRunFolders(t *testing.T) {
	for _, planted := range []bool{true, false} {
		root := t.TempDir()
		for i := 0; i < 8; i++ {
			per := 100 * time.Millisecond
			if planted && i >= 4 {
				per = 110 * time.Millisecond
			}
			writeRun(t, root, i, fmt.Sprintf("%040x", i+1), per, 500)
		}
		pts, skipped, err := Load(root)
		if err != nil || len(skipped) > 0 || len(pts) != 8 {
			t.Fatalf("Load: %d points, skipped %v, %v", len(pts), skipped, err)
		}
		rep := NewReport(root, pts, skipped, Options{})
		if len(rep.Series) != 1 {
			t.Fatalf("%d series", len(rep.Series))
		}
		s := rep.Series[0]
		if planted {
			if c := s.Throughput.Changes; len(c) != 1 || c[0].Index != 4 || c[0].First.Commit != fmt.Sprintf("%040x", 5) {
				t.Fatalf("planted: changes %+v", c)
			}
		} else if len(s.Throughput.Changes) != 0 || len(s.Latency.Changes) != 0 {
			t.Fatalf("flat: changes %+v %+v", s.Throughput.Changes, s.Latency.Changes)
		}
		out := filepath.Join(root, "history")
		var log bytes.Buffer
		if err := WriteAll(context.Background(), out, rep, &log); err != nil {
			t.Fatal(err)
		}
		md, _ := os.ReadFile(filepath.Join(out, MarkdownFile))
		if planted != strings.Contains(string(md), "**code change** at point 4: ") {
			t.Errorf("planted %v, markdown:\n%s", planted, md)
		}
		for _, f := range []string{CSVFile, HTMLFile} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Error(err)
			}
		}
	}
}

func usageProbe(syncs float64) usage.DiskProbe {
	return usage.DiskProbe{Storage: "disk", Seconds: 3, Syncs: int64(3 * syncs), SyncsPerSecond: syncs}
}

// TestDuetAndSingleRunsAreTwoSeries: the same case on the same build, six
// runs alone and then six in duet beside a control (two networks at once,
// each on half the machine: half the payments/s). They are two series,
// named by their design, and neither has a change point; put in one
// series, as before the design was part of a series' identity, the duet's
// halving is a change point.
func TestDuetAndSingleRunsAreTwoSeries(t *testing.T) {
	root := t.TempDir()
	for i := 0; i < 12; i++ {
		commit := fmt.Sprintf("%040x", 1)
		f := folder{i: i, syncs: 500, specs: []spec{{label: "src", build: "lnd@src:/src/lnd#" + commit, commit: commit, perPayment: 100 * time.Millisecond}}}
		if i >= 6 {
			f.specs[0].perPayment = 200 * time.Millisecond
			f.specs = append([]spec{{label: "ref", build: "lnd@v0.21.0-beta", baseline: true, perPayment: 200 * time.Millisecond}}, f.specs...)
		}
		writeFolder(t, root, f)
	}
	pts, skipped, err := Load(root)
	if err != nil || len(skipped) > 0 || len(pts) != 18 {
		t.Fatalf("Load: %d points, skipped %v, %v", len(pts), skipped, err)
	}
	series := Build(pts, Options{})
	var names []string
	for _, s := range series {
		names = append(names, s.Name())
	}
	// Ordered by build, then fewest networks at once first.
	want := []string{
		"AlicePaysBob Concurrency=1/TotalPayments=4 · lnd@src:/src/lnd · single spec, 1 network at a time · machine " + pts[0].Machine,
		"AlicePaysBob Concurrency=1/TotalPayments=4 · lnd@src:/src/lnd · duet, 2 networks at once · machine " + pts[0].Machine,
		"AlicePaysBob Concurrency=1/TotalPayments=4 · lnd@v0.21.0-beta · duet, 2 networks at once · machine " + pts[0].Machine,
	}
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Fatalf("series:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
	single, duet := series[0], series[1]
	if len(single.Points) != 6 || single.Design != DesignSingle || single.Networks != 1 || len(duet.Points) != 6 || duet.Design != "duet" || duet.Networks != 2 {
		t.Fatalf("single %d points %s/%d, duet %d points %s/%d", len(single.Points), single.Design, single.Networks, len(duet.Points), duet.Design, duet.Networks)
	}
	// About 10 payments/s alone, 5 in duet.
	if v := single.Points[0].PaymentsPerSec; v < 9 || v > 10.5 {
		t.Errorf("single payments/s %.2f", v)
	}
	if v := duet.Points[0].PaymentsPerSec; v < 4.5 || v > 5.25 {
		t.Errorf("duet payments/s %.2f", v)
	}
	for _, s := range series {
		if n := len(s.Throughput.Changes) + len(s.Latency.Changes); n != 0 {
			t.Errorf("%s: %d change point(s): %+v %+v", s.Name(), n, s.Throughput.Changes, s.Latency.Changes)
		}
	}
	// The duet's subject was measured beside the control in every run.
	if !duet.Throughput.Relative || !duet.Latency.Relative || duet.Points[0].P50VsControl < 0.95 || duet.Points[0].P50VsControl > 1.05 {
		t.Errorf("duet tracks %+v %+v, p50 vs control %.3f", duet.Throughput, duet.Latency, duet.Points[0].P50VsControl)
	}
	// What the design keeps apart: the same twelve points as one series.
	var mixed []Point
	for _, p := range append(append([]Point(nil), single.Points...), duet.Points...) {
		p.Design, p.Networks, p.Control, p.VsControl, p.P50VsControl = DesignSingle, 1, "", 0, 0
		mixed = append(mixed, p)
	}
	if m := Build(mixed, Options{}); len(m) != 1 || len(m[0].Throughput.Changes) != 1 || m[0].Throughput.Changes[0].Index != 6 {
		t.Errorf("mixed: %d series, changes %+v", len(m), m[0].Throughput.Changes)
	}
	var md bytes.Buffer
	WriteMarkdown(&md, NewReport(root, pts, nil, Options{}))
	if !strings.Contains(md.String(), "## 2. "+want[1]) || !strings.Contains(md.String(), "design: duet, 2 networks at once;") {
		t.Errorf("markdown:\n%s", md.String())
	}
}

// latencyPoints is a series of n runs with flat payments/s and a median
// latency that moves by step from index at on.
func latencyPoints(n, at int, step float64, seed uint64) []Point {
	ps := points(n, -1, 0, seed)
	rng := rand.New(rand.NewPCG(seed, 9))
	for i := range ps {
		ps[i].P50Ms = 120 * (1 + 0.02*rng.NormFloat64())
		if i >= at {
			ps[i].P50Ms *= 1 + step
		}
	}
	return ps
}

// TestALatencyStepIsAChangePointOfItsOwn: payments/s flat, the median
// latency 15% longer from the seventh commit on: the latency track has
// the one change point, marked worse, with a bisect on p50; payments/s
// has none. The CSV and markdown carry both tracks.
func TestALatencyStepIsAChangePointOfItsOwn(t *testing.T) {
	ps := latencyPoints(12, 6, 0.15, 4)
	r := NewReport("runs", ps, nil, Options{})
	s := r.Series[0]
	if len(s.Throughput.Changes) != 0 {
		t.Errorf("payments/s changes %+v", s.Throughput.Changes)
	}
	c := s.Latency.Changes
	if len(c) != 1 || c[0].Index != 6 || !s.Latency.Worse(c[0].Shift) || !strings.HasSuffix(c[0].Bisect, "--case Concurrency=5 --metric p50") {
		t.Fatalf("latency changes %+v", c)
	}
	var md, csvBuf bytes.Buffer
	WriteMarkdown(&md, r)
	for _, want := range []string{"payments/s: no change point (1 test(s)).", "p50 latency (ms): 1 change point(s)", "**code change** at point 6: ", "worse; p = ", "--metric p50`", "| # | run | build | payments/s | p50 ms |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if err := writeCSV(&csvBuf, r); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&csvBuf).ReadAll()
	if err != nil || len(rows) != 13 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for i, row := range rows[1:] {
		here := row[col["latency_change_here"]] == "true"
		if here != (i == 6) || row[col["change_here"]] != "false" || row[col["latency_metric"]] != "p50 latency (ms)" {
			t.Errorf("row %d: %v", i, row)
		}
		if v, _ := strconv.ParseFloat(row[col["latency_value"]], 64); math.Abs(v-ps[i].P50Ms) > 0.01 {
			t.Errorf("row %d: latency_value %s, want %.2f", i, row[col["latency_value"]], ps[i].P50Ms)
		}
	}
}

// TestSeriesFollowTheNaturalOrderOfParams: series (and so the CSV's rows
// and the plot's panels, which follow its series numbers) come in the
// natural order of the cases' params, Concurrency=1, 2, 10, 11, as the
// report lists them, not the lexical 1, 10, 11, 2.
func TestSeriesFollowTheNaturalOrderOfParams(t *testing.T) {
	var ps []Point
	for _, c := range []string{"10", "2", "11", "1"} {
		for _, p := range points(3, -1, 0, 1) {
			p.Case = "Concurrency=" + c + "/TotalPayments=100"
			ps = append(ps, p)
		}
	}
	r := NewReport("runs", ps, nil, Options{})
	var csvBuf bytes.Buffer
	if err := writeCSV(&csvBuf, r); err != nil {
		t.Fatal(err)
	}
	rows, _ := csv.NewReader(&csvBuf).ReadAll()
	var panels []string
	for _, row := range rows[1:] {
		if name := row[1]; len(panels) == 0 || panels[len(panels)-1] != name {
			panels = append(panels, name)
		}
	}
	var want []string
	for i, c := range []string{"1", "2", "10", "11"} {
		want = append(want, fmt.Sprintf("%d. AlicePaysBob Concurrency=%s/TotalPayments=100 · lnd@src:/src/lnd · single spec, 1 network at a time · machine m1", i+1, c))
	}
	if strings.Join(panels, "\n") != strings.Join(want, "\n") {
		t.Fatalf("panels:\n%s\nwant:\n%s", strings.Join(panels, "\n"), strings.Join(want, "\n"))
	}
}

func TestCompareCases(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"Concurrency=2/TotalPayments=100", "Concurrency=10/TotalPayments=5"},
		{"Concurrency=10/TotalPayments=5", "Concurrency=10/TotalPayments=40"},
		{"Rate=2.5", "Rate=10"},
		{"Delay=500ms", "Delay=1s"},
		{"Topology=node2", "Topology=node10"},
		{"Storage=disk", "Storage=tmpfs"},
		{"Concurrency=1", "Concurrency=1/TotalPayments=4"},
	} {
		if CompareCases(c.a, c.b) >= 0 || CompareCases(c.b, c.a) <= 0 {
			t.Errorf("%s should come before %s", c.a, c.b)
		}
	}
	if CompareCases("Concurrency=5", "Concurrency=5") != 0 {
		t.Error("a case is not equal to itself")
	}
}

func TestShortSeriesSayWhyTheyHaveNoChangePoint(t *testing.T) {
	for n, want := range map[int]string{
		5: "5 point(s): change points need at least 3 on each side",
		7: "7 points: a permutation test of 7 points cannot give a p below about 0.057, and α is 0.05; a change point needs more runs (8 at α = 0.05)",
		8: "",
	} {
		s := Build(points(n, -1, 0, 1), Options{})[0]
		if got := strings.Join(s.Notes, "; "); got != want {
			t.Errorf("%d points: notes %q, want %q", n, got, want)
		}
	}
	// A stricter level needs more points.
	if s := Build(points(8, -1, 0, 1), Options{Detect: changepoint.Options{Alpha: 0.02}})[0]; len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "about 0.029, and α is 0.02") {
		t.Errorf("8 points at α 0.02: notes %q", s.Notes)
	}
}

// An open loop's payments/s follows its schedule: its series says so, and
// a change of payments/s gets no bisect command (bisect compares an open
// loop's p50; the latency track's change has the command).
func TestAnOpenLoopSeriesBisectsOnLatency(t *testing.T) {
	ps := latencyPoints(12, 6, 0.15, 4)
	for i := range ps {
		ps[i].OpenLoop = true
		if i >= 6 {
			ps[i].PaymentsPerSec *= 0.85
		}
	}
	s := Build(ps, Options{})[0]
	if len(s.Notes) != 1 || !strings.HasPrefix(s.Notes[0], "open loop: payments/s follows the schedule") {
		t.Errorf("notes %q", s.Notes)
	}
	if c := s.Throughput.Changes; len(c) != 1 || c[0].Bisect != "" {
		t.Errorf("payments/s changes %+v", c)
	}
	if c := s.Latency.Changes; len(c) != 1 || !strings.HasSuffix(c[0].Bisect, "--metric p50") {
		t.Errorf("latency changes %+v", c)
	}
}
