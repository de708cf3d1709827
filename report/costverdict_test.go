package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/usage"
	"github.com/lnbench/lnbench/usage/cost"
)

var costCfg = verdictConfig{alpha: 0.05, noise: DefaultNoise, effect: 0.05}

// rounds makes per-round figures: base·drift·own.
func rounds(base float64, factors ...float64) map[int]float64 {
	out := map[int]float64{}
	for i, f := range factors {
		out[i] = base * f
	}
	return out
}

func TestCostVerdictOf(t *testing.T) {
	drift := []float64{1.00, 1.06, 0.95, 1.03, 0.98, 1.01}
	scaled := func(k float64, own ...float64) []float64 {
		out := make([]float64, len(own))
		for i := range own {
			out[i] = k * drift[i] * own[i]
		}
		return out
	}
	base := rounds(7, scaled(1, 1, 1.01, 0.99, 1.005, 0.995, 1)...)
	for _, tc := range []struct {
		name      string
		base, new map[int]float64
		verdict   string
		rounds    int
		dropped   []int
		ratio     float64 // ±1%
		interval  bool
		note      string
	}{
		{"36% more CPU, 6 rounds", base, rounds(7, scaled(1.36, 1.01, 0.99, 1, 1.01, 0.99, 1)...), CostMore, 6, nil, 1.36, true, ""},
		{"less", base, rounds(7, scaled(0.8, 1, 1, 1.01, 0.99, 1, 1)...), CostLess, 6, nil, 0.8, true, ""},
		{"same within 5%", base, rounds(7, scaled(1.005, 0.995, 1.01, 1, 0.99, 1.005, 1)...), VerdictSame, 6, nil, 1.0, true, ""},
		{"spread too wide to tell", base, rounds(7, scaled(1.04, 0.85, 1.2, 0.9, 1.15, 1.0, 1.1)...), VerdictUnknown, 6, nil, 1.066, true, "launches per spec would detect a 5% change"},
		{"a round missing on one side is dropped", base, rounds(7, scaled(1.36, 1.01, 0.99, 1, 1.01, 0.99)...), CostMore, 5, []int{5}, 1.36, true, "launch round(s) #6 left out"},
		{"one launch a side: a ratio, no verdict", map[int]float64{0: 7}, map[int]float64{0: 9.52}, VerdictUnknown, 1, nil, 1.36, false, "run LaunchCount ≥ 2 (comparisons default to 6)"},
		{"no common round", map[int]float64{0: 7}, map[int]float64{1: 7}, VerdictUnknown, 0, []int{0, 1}, 0, false, "no launch round measured on both sides"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := costVerdictOf("bob", CostCPU, tc.base, tc.new, costCfg)
			if v.Verdict != tc.verdict || len(v.Rounds) != tc.rounds || !equalInts(v.Dropped, tc.dropped) {
				t.Fatalf("got %s over %v (dropped %v), want %s over %d (dropped %v); notes %q", v.Verdict, v.Rounds, v.Dropped, tc.verdict, tc.rounds, tc.dropped, v.Notes)
			}
			if math.Abs(v.Ratio-tc.ratio) > 0.01*math.Max(tc.ratio, 1) {
				t.Errorf("ratio %.3f, want %.2f", v.Ratio, tc.ratio)
			}
			if (v.Low > 0) != tc.interval || tc.interval && !(v.Low <= v.Ratio && v.Ratio <= v.High && v.MDE > 0) {
				t.Errorf("interval %.3f–%.3f (MDE %.3f) around %.3f, want one: %v", v.Low, v.High, v.MDE, v.Ratio, tc.interval)
			}
			if tc.note != "" && !strings.Contains(strings.Join(v.Notes, "\n"), tc.note) {
				t.Errorf("notes %q lack %q", v.Notes, tc.note)
			}
			if tc.rounds > 0 && math.Abs(v.Diff-(v.New-v.Base)) > 1e-12 {
				t.Errorf("difference %v is not %v − %v", v.Diff, v.New, v.Base)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCostVerdictsOfActors: nodes and the chain are compared, CPU then
// syncs; the harness is not; syncs nobody counted are no figure; an actor
// of one launch is its own launch 0.
func TestCostVerdictsOfActors(t *testing.T) {
	launches := func(cpu, syncs float64, counted bool) []cost.LaunchCost {
		var out []cost.LaunchCost
		for l, f := range []float64{1, 1.05, 0.97, 1.02} {
			out = append(out, cost.LaunchCost{Launch: l, Payments: 100, CPUMsPerPayment: cpu * f, SyncsCounted: counted, SyncsPerPayment: syncs * f})
		}
		return out
	}
	side := func(k float64) cost.Case {
		return cost.Case{Actors: []cost.Actor{
			{Name: "alice", Role: usage.RoleNode, Launches: launches(5, 9, true)},
			{Name: "bob", Role: usage.RoleNode, Launches: launches(7*k, 14, true)},
			{Name: "btcd", Role: usage.RoleChain, Launches: launches(0.4, 0, false)},
			{Name: "harness", Role: usage.RoleHarness, Launches: launches(0.5*k, 0, false)},
		}}
	}
	vs := costVerdictsOf(side(1.36), side(1), costCfg)
	var got []string
	for _, v := range vs {
		got = append(got, v.Actor+" "+v.Figure+" "+v.Verdict)
	}
	want := "alice cpu_ms_per_payment same|alice syncs_per_payment same|bob cpu_ms_per_payment more|bob syncs_per_payment same|btcd cpu_ms_per_payment same"
	if strings.Join(got, "|") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
	// One launch: the actor's own figures.
	one := cost.Actor{Name: "bob", Role: usage.RoleNode, Payments: 40, CPUMsPerPayment: 9.5, SyncsCounted: true, SyncsPerPayment: 14}
	if f := launchFigures(one, CostCPU); len(f) != 1 || f[0] != 9.5 {
		t.Errorf("one launch's CPU figures: %v", f)
	}
	if f := launchFigures(cost.Actor{Payments: 40, CPUMsPerPayment: 9.5}, CostSyncs); len(f) != 0 {
		t.Errorf("syncs not counted, yet figures %v", f)
	}
}

func TestCostLine(t *testing.T) {
	v := func(actor, fig, verdict string, diff, ratio, low, high float64) CostVerdict {
		return CostVerdict{Actor: actor, Figure: fig, Verdict: verdict, Diff: diff, Ratio: ratio, Low: low, High: high, Alpha: 0.05}
	}
	for _, tc := range []struct {
		name string
		vs   []CostVerdict
		want string
	}{
		{"the changed actor first", []CostVerdict{v("alice", CostCPU, VerdictSame, 0.01, 1.002, 0.99, 1.01), v("alice", CostSyncs, VerdictSame, 0, 1, 0.99, 1.01),
			v("bob", CostCPU, CostMore, 2.5, 1.36, 1.30, 1.42), v("bob", CostSyncs, VerdictSame, 0.1, 1.01, 0.98, 1.03)},
			"bob +2.50 ms CPU per payment (1.36×, 95% CI 1.30–1.42), more; alice same; bob syncs same"},
		{"syncs less", []CostVerdict{v("carol", CostSyncs, CostLess, -3.2, 0.78, 0.7, 0.85)},
			"carol -3.20 syncs per payment (0.78×, 95% CI 0.70–0.85), less"},
		{"with its MDE", []CostVerdict{func() CostVerdict { c := v("bob", CostCPU, CostMore, 2.5, 1.36, 1.30, 1.42); c.MDE = 0.041; return c }()},
			"bob +2.50 ms CPU per payment (1.36×, 95% CI 1.30–1.42, MDE 4.1%), more"},
		{"figures that disagree, a ratio without interval", []CostVerdict{v("alice", CostCPU, VerdictSame, 0, 1, 0.99, 1.01), v("alice", CostSyncs, VerdictUnknown, 1, 1.07, 0, 0)},
			"alice CPU same, syncs not yet known (syncs 1.07×)"},
		{"all not yet known", []CostVerdict{v("bob", CostCPU, VerdictUnknown, 3, 1.36, 0, 0), v("bob", CostSyncs, VerdictUnknown, 0.2, 1.01, 0, 0)},
			"bob not yet known (CPU 1.36×, syncs 1.01×)"},
		{"none", nil, ""},
	} {
		if got := CostLine(tc.vs); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestHoldCostTogether: a change significant alone but not over the
// run's comparisons becomes not yet known; a strong one stays.
func TestHoldCostTogether(t *testing.T) {
	mk := func(p float64, verdict string) *CostVerdict {
		return &CostVerdict{Actor: "bob", Figure: CostCPU, P: p, Low: 1.01, High: 1.1, Alpha: 0.05, Verdict: verdict}
	}
	strong, weak, same := mk(0.001, CostMore), mk(0.03, CostLess), mk(0.6, VerdictSame)
	holdCostTogether([]*CostVerdict{strong, weak, same})
	if strong.Verdict != CostMore || math.Abs(strong.PHolm-0.003) > 1e-12 {
		t.Errorf("strong: %s, Holm p %v", strong.Verdict, strong.PHolm)
	}
	if weak.Verdict != VerdictUnknown || math.Abs(weak.PHolm-0.06) > 1e-12 || !strings.Contains(strings.Join(weak.Notes, ""), "not over the run's 3 cost comparisons") {
		t.Errorf("weak: %s, Holm p %v, notes %q", weak.Verdict, weak.PHolm, weak.Notes)
	}
	if same.Verdict != VerdictSame {
		t.Errorf("same became %s", same.Verdict)
	}
}

// costSamples are resource samples for fixtureSpecRecords: every case's
// launch (2 iterations) on a network of its own, each iteration sampled a
// second after it starts, after a warm-up sample. Per payment, bob of the
// patched spec spends 1.36× the baseline's CPU on Concurrency=10 and the
// same elsewhere; alice and btcd the same everywhere; each launch round
// moves both specs alike (drift) and each launch a little on its own. The
// patched spec's fourth launch of Concurrency=20 was not sampled.
func costSamples() []usage.Sample {
	var out []usage.Sample
	drift := []float64{1.00, 1.06, 0.95, 1.03}
	own := []float64{1.00, 1.01, 0.99, 1.005, 0.995, 1.01, 0.99, 1.00}
	ownSyncs := []float64{1.00, 1.04, 0.97, 1.02, 0.98, 1.03, 0.96, 1.00}
	type actorCost struct {
		name, role string
		cpuMs      float64 // per payment
		syncs      float64 // per payment; 0: no counter
	}
	for si, spec := range []string{"v0.21.0-beta", "patched"} {
		for ci, conc := range []string{"10", "20"} {
			id := "Node=" + spec + "/Concurrency=" + conc + "/TotalPayments=4"
			actors := []actorCost{{"alice", usage.RoleNode, 5.2, 9}, {"bob", usage.RoleNode, 6.9, 14}, {"btcd", usage.RoleChain, 0.42, 0}, {"harness", usage.RoleHarness, 0.5, 0}}
			if si == 1 && ci == 0 {
				actors[1].cpuMs *= 1.36
			}
			for l := range 4 {
				if si == 1 && ci == 1 && l == 3 {
					continue
				}
				k := drift[l] * own[si*4+l]
				start := t0.Add(time.Duration(2*si+ci)*100*time.Second + time.Duration(2*l)*2*time.Second)
				for _, a := range actors {
					s := usage.Sample{Time: start.Add(-500 * time.Millisecond), Network: id + "/launch" + string(rune('0'+l)), Case: id, Phase: result.Warmup,
						Iteration: l, Actor: a.name, Role: a.role, Source: usage.SourceProc, CPUUserSeconds: 10, SyncsCounted: a.syncs > 0, Syncs: 100}
					out = append(out, s)
					for i := range 2 {
						s.Time = start.Add(time.Duration(2*i+1) * time.Second)
						s.Phase, s.Iteration = result.Measure, 2*l+i
						s.CPUUserSeconds += 4 * a.cpuMs * k / 1000
						if a.syncs > 0 {
							s.Syncs += int64(math.Round(4 * a.syncs * drift[l] * ownSyncs[si*4+l]))
						}
						out = append(out, s)
					}
				}
			}
		}
	}
	return out
}

func fixtureSpecCostReport() Report {
	r := fixtureSpecReport()
	r.RunID = "20260102T030405Z-AlicePaysBob-specs-cost"
	SummarizeResources(&r, costSamples(), fixtureSpecRecords())
	return r
}

func TestCostVerdictsInReports(t *testing.T) {
	r := fixtureSpecCostReport()
	c10 := r.Cases[2] // Node=patched/Concurrency=10
	if c10.ID != "Node=patched/Concurrency=10/TotalPayments=4" || len(c10.CostVerdicts) != 5 {
		t.Fatalf("case %s: %+v", c10.ID, c10.CostVerdicts)
	}
	line := CostLine(c10.CostVerdicts)
	if !strings.HasPrefix(line, "bob +2.") || !strings.Contains(line, "ms CPU per payment (1.36×, 95% CI 1.3") || !strings.Contains(line, "), more; alice same; bob syncs same; btcd same") {
		t.Errorf("Concurrency=10's line: %s", line)
	}
	for i, c := range r.Cases {
		if c.Node == "v0.21.0-beta" && c.CostVerdicts != nil {
			t.Errorf("baseline case %d has cost verdicts", i)
		}
	}
	c20 := r.Cases[3]
	for _, v := range c20.CostVerdicts {
		if v.Changed() || !equalInts(v.Dropped, []int{3}) {
			t.Errorf("Concurrency=20 %s %s: %s, dropped %v", v.Actor, v.Figure, v.Verdict, v.Dropped)
		}
	}

	for _, f := range []struct {
		name string
		fn   func(*bytes.Buffer) error
		want []string
	}{
		{"summary-specs-cost.md.golden", func(b *bytes.Buffer) error { return Markdown(b, r) },
			[]string{"## Verdicts against the baseline", "Cost per payment against the same actor", "Node=patched/Concurrency=10/TotalPayments=4: bob +2.",
				"| Case | Actor | Per payment | Baseline | Case value | Difference | Ratio | 95% CI | p | Rounds | MDE | Verdict |", "launch round(s) #4 left out"}},
		{"report-specs-cost.html.golden", func(b *bytes.Buffer) error { return HTML(b, r, nil) },
			[]string{"<h2>Verdicts against the baseline</h2>", "<th>Per payment</th>", "), more; alice same"}},
		{"summary-specs-cost.csv.golden", func(b *bytes.Buffer) error { return CSV(b, r) },
			[]string{",LaunchesForEffect,CostVerdict\n", ",baseline\n", "), more; alice same; bob syncs same; btcd same\"\n"}},
	} {
		var b bytes.Buffer
		if err := f.fn(&b); err != nil {
			t.Fatal(err)
		}
		testsupport.Golden(t, "testdata/"+f.name, b.Bytes())
		for _, w := range f.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s lacks %q", f.name, w)
			}
		}
	}

	var js bytes.Buffer
	if err := JSON(&js, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"cost_verdicts": [`, `"figure": "cpu_ms_per_payment"`, `"verdict": "more"`, `"dropped_rounds": [`, `"launches": [`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("summary.json lacks %s", want)
		}
	}

	// The terminal has the lines and notes, not the table.
	var txt bytes.Buffer
	if err := Text(&txt, r); err != nil {
		t.Fatal(err)
	}
	if s := txt.String(); !strings.Contains(s, "  Node=patched/Concurrency=10/TotalPayments=4: bob +2.") || strings.Contains(s, "Per payment") {
		t.Errorf("terminal:\n%s", s)
	}

	// Bisect's view: the same verdicts between two specs of a case.
	vs, ok := CostVerdictsBetween(r, "patched", "v0.21.0-beta", "Concurrency=10/TotalPayments=4")
	if !ok || !strings.HasPrefix(CostLine(vs), "bob +2.") || vs[2].Verdict != CostMore {
		t.Errorf("CostVerdictsBetween: %v %s", ok, CostLine(vs))
	}
	if _, ok := CostVerdictsBetween(r, "patched", "nope", "Concurrency=10/TotalPayments=4"); ok {
		t.Error("CostVerdictsBetween found a spec that is not there")
	}

	// Without resources, no cost verdicts and no column.
	var plain bytes.Buffer
	if err := CSV(&plain, fixtureSpecReport()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "CostVerdict") {
		t.Error("CostVerdict column without resources")
	}
}
