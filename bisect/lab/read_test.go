package lab

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/bisect"
	"github.com/lnbench/lnbench/gitrev"
	"github.com/lnbench/lnbench/nodespec"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage"
)

// bisectRunDir writes the artifacts folder of a bisect step's run as the
// runner leaves it (run.json, payments.jsonl and, with samples,
// resources.jsonl): specs good, mid and bad, 4 launches of 3 iterations
// of 10 payments, one a second, each launch a network of its own. A
// payment costs alice 5 ms CPU and btcd 0.4 ms on every spec, bob 7 ms on
// good and bad, 7×bobMid on mid; each round drifts all specs alike.
func bisectRunDir(t *testing.T, revs []gitrev.Commit, bobMid float64, samples bool) (string, string) {
	t.Helper()
	dir := t.TempDir()
	s := scenario.Default()
	s.Params = []scenario.Param{{Name: "Concurrency", Values: []string{"1"}}, {Name: "TotalPayments", Values: []string{"10"}}}
	s.Job.IterationCount, s.Job.LaunchCount = 3, 4
	for _, c := range revs {
		sp, err := nodespec.Parse("lnd@v0.21.0-beta")
		if err != nil {
			t.Fatal(err)
		}
		sp.Label = c.Short
		s.Nodes = append(s.Nodes, sp)
	}
	s.Baseline = revs[0].Short
	m := record.Manifest{RunID: "step", Scenario: s, Backend: "local"}
	m.Env.Cores = 2
	if err := record.Write(dir, m); err != nil {
		t.Fatal(err)
	}
	pw, err := result.Create(filepath.Join(dir, record.PaymentsFile))
	if err != nil {
		t.Fatal(err)
	}
	var sw *usage.Writer
	if samples {
		if sw, err = usage.Create(filepath.Join(dir, record.ResourcesFile)); err != nil {
			t.Fatal(err)
		}
	}
	drift := []float64{1, 1.06, 0.95, 1.03}
	own := []float64{1, 1.01, 0.99, 1.005}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var caseKey string
	for si, c := range s.Cases() {
		caseKey = strings.TrimPrefix(c.ID(), "Node="+c.Node+"/")
		perPay := map[string]float64{"alice": 5, "bob": 7, "btcd": 0.4}
		if c.Node == revs[1].Short {
			perPay["bob"] *= bobMid
		}
		for l := range drift {
			network := fmt.Sprintf("%s-%d", c.Node, l)
			dt := time.Duration(float64(time.Second) * drift[l] * own[(l+si)%4])
			start := t0.Add(time.Duration(si)*time.Hour + time.Duration(l)*10*time.Minute)
			n := 0
			for k := range 3 {
				it := l*3 + k
				for j := range 10 {
					at := start.Add(time.Duration(k*10+j) * dt)
					if err := pw.Write(result.Record{Case: c.ID(), Phase: result.Measure, Iteration: it, Worker: 0, Seq: j,
						Start: at.Add(dt / 10), End: at.Add(dt / 2), Status: result.Succeeded}); err != nil {
						t.Fatal(err)
					}
					if sw == nil {
						continue
					}
					for _, a := range []struct{ name, role string }{{"alice", usage.RoleNode}, {"bob", usage.RoleNode}, {"btcd", usage.RoleChain}} {
						cpu := float64(n) * perPay[a.name] * drift[l] * own[(l+si+len(a.name))%4] / 1000
						if err := sw.Write(usage.Sample{Time: at, Network: network, Case: c.ID(), Phase: result.Measure, Iteration: it,
							Actor: a.name, Role: a.role, Source: usage.SourceCgroupV1, CPUUserSeconds: cpu}); err != nil {
							t.Fatal(err)
						}
					}
					n++
				}
			}
		}
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	if sw != nil {
		if err := sw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return dir, caseKey
}

// The lab reads a step's run as report.Load leaves it: the time ratio of
// each pair and, beside it, the cost verdict from resources.jsonl (bob
// spends 36% more CPU per payment on the middle revision: "more" against
// both ends, alice and btcd "same"); a run without samples has no cost.
func TestBisectLabReadsTheCostBesideTheRatio(t *testing.T) {
	good, mid, bad := gitrev.Commit{ID: "aaaa", Short: "aa"}, gitrev.Commit{ID: "bbbb", Short: "bb"}, gitrev.Commit{ID: "cccc", Short: "cc"}
	revs := []gitrev.Commit{good, mid, bad}
	pairs := Comparisons(revs)

	dir, caseKey := bisectRunDir(t, revs, 1.36, true)
	rep, _, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := bisect.Measurement{Ratios: map[string]bisect.Comparison{}}
	if !readRun(rep, "time", caseKey, pairs, &m) {
		t.Fatalf("the run reads as measuring nothing: cases %d, case key %q", len(rep.Cases), caseKey)
	}
	if m.Launches != 4 || len(m.Ratios) != 3 {
		t.Errorf("launches %d, comparisons %v", m.Launches, m.Ratios)
	}
	for _, p := range pairs {
		c, ok := m.Of(p[0].ID, p[1].ID)
		if !ok || !(c.Ratio > 0.9 && c.Ratio < 1.1) || c.Alpha != report.DefaultAlpha {
			t.Errorf("%s vs %s: %+v", p[0].Short, p[1].Short, c)
		}
		want := "alice same; bob same; btcd same"
		if p[0] == mid { // bob: 7 ms × 1.36 against 7 ms, × the rounds' mean drift
			want = "bob +2.55 ms CPU per payment (1.36×, 95% CI 1.33–1.39, MDE 3.3%), more; alice same; btcd same"
		}
		if c.Cost != want {
			t.Errorf("%s vs %s: cost %q, want %q", p[0].Short, p[1].Short, c.Cost, want)
		}
	}

	// No resources.jsonl (ResourceSampling off): the ratios, no cost.
	dir, caseKey = bisectRunDir(t, revs, 1.36, false)
	if rep, _, err = report.Load(dir); err != nil {
		t.Fatal(err)
	}
	m = bisect.Measurement{Ratios: map[string]bisect.Comparison{}}
	if !readRun(rep, "time", caseKey, pairs, &m) {
		t.Fatal("a run without samples reads as measuring nothing")
	}
	for k, c := range m.Ratios {
		if c.Cost != "" || !(c.Ratio > 0) {
			t.Errorf("%s without samples: %+v", k, c)
		}
	}
	// A pair the run did not measure is no reading.
	if readRun(rep, "time", caseKey, [][2]gitrev.Commit{{gitrev.Commit{ID: "x", Short: "x"}, good}}, &m) {
		t.Error("a pair the run never measured reads as measured")
	}
}

func TestComparisons(t *testing.T) {
	a, b, c := gitrev.Commit{ID: "a"}, gitrev.Commit{ID: "b"}, gitrev.Commit{ID: "c"}
	pairs := Comparisons([]gitrev.Commit{a, c})
	if len(pairs) != 1 || pairs[0] != [2]gitrev.Commit{c, a} {
		t.Fatalf("ends: %v", pairs)
	}
	pairs = Comparisons([]gitrev.Commit{a, b, c})
	if len(pairs) != 3 || pairs[0] != [2]gitrev.Commit{b, a} || pairs[1] != [2]gitrev.Commit{c, a} || pairs[2] != [2]gitrev.Commit{b, c} {
		t.Fatalf("step: %v", pairs)
	}
}

// The lab records each comparison's level from its run's design: 0.05
// split over an until-known run's looks, so the reports label the
// interval right, and the effect the run's "same" was at.
func TestBisectComparisonKeepsItsLevel(t *testing.T) {
	r := report.Ratio{Of: 1.1, Low: 1.05, High: 1.15, P: 0.001, Verdict: report.VerdictSlower, Effect: 0.05}
	for _, tc := range []struct {
		design *record.Design
		alpha  float64
		looks  int
		ci     string
	}{
		{&record.Design{UntilKnown: true, MaxLaunches: 12, Looks: 5}, 0.01, 5, "99% CI"},
		{&record.Design{UntilKnown: true, MaxLaunches: 8, Looks: 3}, 0.05 / 3, 3, "98.33% CI"},
		{&record.Design{}, 0.05, 1, "95% CI"},
		{nil, 0.05, 1, "95% CI"},
	} {
		c := comparisonOf(r, tc.design)
		if math.Abs(c.Alpha-tc.alpha) > 1e-12 || c.Looks != tc.looks || c.CI() != tc.ci || c.Margin != 0.05 || c.Verdict != bisect.Slower {
			t.Errorf("design %+v: %+v (%s), want alpha %g looks %d %s", tc.design, c, c.CI(), tc.alpha, tc.looks, tc.ci)
		}
	}
	if c := comparisonOf(report.Ratio{Verdict: report.VerdictTooFew}, nil); c.Verdict != bisect.Unknown {
		t.Errorf("too few samples reads as %q, want not yet known", c.Verdict)
	}
}
