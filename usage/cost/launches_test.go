package cost

import (
	"fmt"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/usage"
)

// launchSpec is one launch of a synthetic case on a network of its own:
// 2 s of warm-up, then perLaunch measured iterations of 2 s, every actor
// sampled each second, pps successful payments a second.
type launchSpec struct {
	launch  int
	network string
	pps     int
	cpus    map[string]float64 // cores per actor while measuring
	syncs   map[string]float64 // syncs per payment; absent: no counter
	caseID  string             // "" is caseID
}

// launchRun builds the samples and payments of the launches, launch L
// starting at t0 + L·100 s.
func launchRun(perLaunch int, ls ...launchSpec) ([]usage.Sample, []result.Record) {
	var samples []usage.Sample
	var recs []result.Record
	for _, l := range ls {
		id := l.caseID
		if id == "" {
			id = caseID
		}
		start := t0.Add(time.Duration(l.launch) * 100 * time.Second)
		measured := 2 * max(1, perLaunch)
		for k := -2; k <= measured; k++ {
			at := start.Add(time.Duration(k) * time.Second)
			m := float64(max(k, 0))
			paid := m * float64(l.pps)
			for _, name := range []string{"alice", "bob"} {
				warm := 2.0 * float64(min(k+2, 2)) // 2 cores in warm-up: never credited
				cpu := warm + l.cpus[name]*m
				spp, counted := l.syncs[name]
				s := usage.Sample{Time: at, Network: l.network, Case: id, Phase: result.Measure, Iteration: l.launch*perLaunch + max(k-1, 0)/2,
					Actor: name, Role: usage.RoleNode, Source: usage.SourceProc, CPUUserSeconds: cpu, Syncs: int64(spp * paid), SyncsCounted: counted}
				if k <= 0 {
					s.Phase, s.Iteration = result.Warmup, l.launch
				}
				samples = append(samples, s)
			}
			if k >= 0 && k < measured {
				for j := range l.pps {
					end := at.Add(time.Duration(j+1) * time.Second / time.Duration(l.pps+1))
					recs = append(recs, result.Record{Case: id, Phase: result.Measure, Iteration: l.launch*perLaunch + k/2,
						Start: end.Add(-10 * time.Millisecond), End: end, Status: result.Succeeded})
				}
			}
		}
		// A failed payment and a warm-up one: in no denominator.
		recs = append(recs, result.Record{Case: id, Phase: result.Measure, Iteration: l.launch * perLaunch, End: start.Add(time.Second / 2), Status: result.Failed},
			result.Record{Case: id, Phase: result.Warmup, Iteration: l.launch, End: start.Add(-time.Second), Status: result.Succeeded})
	}
	return samples, recs
}

func TestLaunches(t *testing.T) {
	type want struct {
		launch   int
		network  string
		payments int
		cpuMs    float64
		syncs    float64 // -1: not counted
	}
	a := func(cpus, syncs float64) map[string]float64 { return map[string]float64{"alice": cpus, "bob": syncs} }
	for _, tc := range []struct {
		name      string
		perLaunch int
		launches  []launchSpec
		bob       []want
	}{
		{"one launch", 3, []launchSpec{{launch: 0, network: "n0", pps: 10, cpus: a(0.2, 0.5), syncs: a(9, 14)}},
			[]want{{0, "n0", 60, 50, 14}}},
		{"three launches, each its own cost", 3, []launchSpec{
			{launch: 0, network: "n0", pps: 10, cpus: a(0.2, 0.5), syncs: a(9, 14)},
			{launch: 1, network: "n1", pps: 20, cpus: a(0.2, 0.5), syncs: a(9, 12)},
			{launch: 2, network: "n2", pps: 10, cpus: a(0.2, 0.6), syncs: a(9, 14)}},
			[]want{{0, "n0", 60, 50, 14}, {1, "n1", 120, 25, 12}, {2, "n2", 60, 60, 14}}},
		{"a missing launch keeps its number", 2, []launchSpec{
			{launch: 0, network: "a", pps: 10, cpus: a(0.2, 0.5), syncs: a(9, 14)},
			{launch: 3, network: "b", pps: 10, cpus: a(0.2, 0.4), syncs: a(9, 14)}},
			[]want{{0, "a", 40, 50, 14}, {3, "b", 40, 40, 14}}},
		{"no sync counter in one launch", 2, []launchSpec{
			{launch: 0, network: "n0", pps: 10, cpus: a(0.2, 0.5), syncs: a(9, 14)},
			{launch: 1, network: "n1", pps: 10, cpus: a(0.2, 0.5), syncs: map[string]float64{"alice": 9}}},
			[]want{{0, "n0", 40, 50, 14}, {1, "n1", 40, 50, -1}}},
		{"a timed job is one launch", 0, []launchSpec{{launch: 0, network: "n0", pps: 10, cpus: a(0.2, 0.5), syncs: a(9, 14)}},
			[]want{{0, "n0", 20, 50, 14}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			samples, recs := launchRun(tc.perLaunch, tc.launches...)
			// Another case's launch at the same times must not count.
			os, orecs := launchRun(tc.perLaunch, launchSpec{launch: 0, network: "other", pps: 40, cpus: a(1, 1), syncs: a(1, 1), caseID: "other"})
			in := Input{Cases: []CaseInput{{ID: caseID, PerLaunch: tc.perLaunch}}, Samples: append(samples, os...), Payments: append(recs, orecs...), HostCores: 2}
			got := Launches(in, in.Cases[0])["bob"]
			if len(got) != len(tc.bob) {
				t.Fatalf("bob's launches: %+v, want %d", got, len(tc.bob))
			}
			for i, w := range tc.bob {
				g := got[i]
				if g.Launch != w.launch || g.Network != w.network || g.Payments != w.payments {
					t.Errorf("launch %d: got %+v, want %+v", i, g, w)
				}
				near(t, fmt.Sprintf("launch %d CPU ms/payment", w.launch), g.CPUMsPerPayment, w.cpuMs)
				if (w.syncs >= 0) != g.SyncsCounted {
					t.Errorf("launch %d: syncs counted %v, want %v", w.launch, g.SyncsCounted, w.syncs >= 0)
				} else if w.syncs >= 0 {
					near(t, fmt.Sprintf("launch %d syncs/payment", w.launch), g.SyncsPerPayment, w.syncs)
				}
			}
			// The launches add up to the case's figures.
			c := Analyze(in)[0]
			bob := actor(t, c, "bob")
			sum, cpu := 0, 0.0
			for _, l := range got {
				sum += l.Payments
				cpu += l.CPUMsPerPayment * float64(l.Payments)
			}
			if sum != bob.Payments {
				t.Errorf("launch payments add up to %d, the case has %d", sum, bob.Payments)
			}
			near(t, "CPU over the launches", cpu/1000, bob.CPUSeconds)
			// Analyze lists them only beyond one launch 0.
			if one := len(got) == 1 && got[0].Launch == 0; one != (bob.Launches == nil) {
				t.Errorf("Actor.Launches = %+v with %d launch(es)", bob.Launches, len(got))
			}
		})
	}
}
