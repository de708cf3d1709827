package history

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/internal/envinfo"
	"github.com/lnbench/lnbench/internal/jsonl"
	"github.com/lnbench/lnbench/result"
	"github.com/lnbench/lnbench/runrecord"
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
		if len(series) != 1 || len(series[0].Changes) != 1 || series[0].Changes[0].Index != 4 {
			t.Fatalf("seed %d: changes %+v", seed, series[0].Changes)
		}
		c := series[0].Changes[0]
		if c.Kind != "code" || !strings.Contains(c.Bisect, "--good 000000000000 --bad 000000000000") || !strings.Contains(c.Bisect, "--case Concurrency=5") {
			t.Errorf("seed %d: change %+v", seed, c)
		}
	}
}

func TestAFlatSeriesHasNoChangePoint(t *testing.T) {
	fired := 0
	for seed := uint64(1); seed <= 20; seed++ {
		if s := Build(points(8, -1, 0, seed), Options{}); len(s[0].Changes) > 0 {
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
	if len(s.Changes) != 1 || s.Changes[0].Kind != "environment" || !strings.Contains(s.Changes[0].Why, "disk sync ceiling 500 → 230") {
		t.Fatalf("changes %+v", s.Changes)
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
	if !strings.HasPrefix(s.Metric, "payments/s relative to release") || len(s.Changes) != 0 {
		t.Fatalf("metric %q changes %+v", s.Metric, s.Changes)
	}
}

// writeRun writes an artifacts folder as the runner would: its manifest
// and payments of one case whose iterations take about perPayment each.
func writeRun(t *testing.T, root string, i int, commit string, perPayment time.Duration, syncs float64) {
	t.Helper()
	dir := filepath.Join(root, fmt.Sprintf("2026110%dT120000Z-AlicePaysBob", i))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := scenario.Scenario{Name: "AlicePaysBob", Method: "RunAlicePaysBob", Topology: "AlicePaysBob",
		Params: []scenario.Param{{Name: "Concurrency", Values: []string{"1"}}, {Name: "TotalPayments", Values: []string{"4"}}},
		Job:    scenario.Job{LaunchCount: 1, WarmupCount: 0, IterationCount: 6, InvocationCount: 1},
		Node:   scenario.Node{Implementation: "lnd", Version: "src", DBBackend: "bbolt"}}
	started := t0.Add(time.Duration(i) * time.Hour)
	m := runrecord.Manifest{RunID: filepath.Base(dir), Started: started, Finished: started.Add(time.Minute), Scenario: s, Backend: "local",
		Env:   envinfo.Env{OS: "Debian", CPU: "EPYC", Cores: 2, MemoryMiB: 24 << 10},
		Nodes: []runrecord.NodeInfo{{Label: "src", Implementation: "lnd", Version: "src", Build: "lnd@src:/src/lnd#" + commit, Source: "/src/lnd", Commit: commit, Subject: "commit " + commit}}}
	if syncs > 0 {
		m.DiskProbes = append(m.DiskProbes, usageProbe(syncs))
	}
	if err := runrecord.Write(dir, m); err != nil {
		t.Fatal(err)
	}
	w, err := jsonl.Create[result.Record](filepath.Join(dir, runrecord.PaymentsFile), runrecord.PaymentsFile)
	if err != nil {
		t.Fatal(err)
	}
	at := started
	for it := 0; it < 6; it++ {
		for j := 0; j < 4; j++ {
			lat := perPayment + time.Duration((it*7+j*3)%5)*time.Millisecond
			w.Write(result.Record{Case: "Concurrency=1/TotalPayments=4", Phase: result.Measure, Iteration: it, Worker: 0, Seq: j,
				Payer: "alice", Payee: "bob", Mode: "invoice", Start: at, End: at.Add(lat), PaymentNs: int64(lat), Status: result.Succeeded, Hops: 1})
			at = at.Add(lat)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
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
			if len(s.Changes) != 1 || s.Changes[0].Index != 4 || s.Changes[0].First.Commit != fmt.Sprintf("%040x", 5) {
				t.Fatalf("planted: changes %+v", s.Changes)
			}
		} else if len(s.Changes) != 0 {
			t.Fatalf("flat: changes %+v", s.Changes)
		}
		out := filepath.Join(root, "history")
		var log bytes.Buffer
		if err := WriteAll(context.Background(), out, rep, &log); err != nil {
			t.Fatal(err)
		}
		md, _ := os.ReadFile(filepath.Join(out, MarkdownFile))
		if planted != strings.Contains(string(md), "**code change** at point 4") {
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
