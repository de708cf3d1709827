package cost

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/usage"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

const caseID = "Concurrency=10/TotalPayments=100"

// actorSpec is one actor's steady behaviour in a synthetic run.
type actorSpec struct {
	name, role      string
	limit           float64 // CPUs; 0 none
	cpus            float64 // cores used while measuring
	syncsPerPayment float64 // 0 with noSyncs: counter not attached
	noSyncs         bool
	writePerPayment int64
	rss, memLimit   int64
	data0, data1    int64   // data dir size at the case's start and end
	throttled       float64 // share of the quota's 100 ms periods throttled while measuring
}

// run is a synthetic case: 5 s of warm-up at 1.5 cores per actor (which
// must not count), then measured seconds with pps successful payments each
// second, every actor sampled each second.
type run struct {
	measured int
	pps      int
	actors   []actorSpec
	// edit changes a sample after it is made (counter resets, gaps).
	edit func(s *usage.Sample) (keep bool)
}

func (r run) build() ([]usage.Sample, []result.Record) {
	var samples []usage.Sample
	var recs []result.Record
	for k := -5; k <= r.measured; k++ {
		at := t0.Add(time.Duration(k) * time.Second)
		for _, a := range r.actors {
			warm := 1.5 * 5 // warm-up CPU seconds before t0
			if k < 0 {
				warm = 1.5 * float64(k+5)
			}
			m := float64(max(k, 0))
			paid := m * float64(r.pps)
			s := usage.Sample{Time: at, Network: "n1", Case: caseID, Phase: result.Measure, Iteration: int(m) / 10, Actor: a.name, Role: a.role,
				Source: usage.SourceCgroupV1, CPUUserSeconds: 0.8 * (warm + a.cpus*m), CPUSysSeconds: 0.2 * (warm + a.cpus*m), CPULimit: a.limit,
				RSSBytes: a.rss + int64(m)*1000, MemLimitBytes: a.memLimit, WriteBytes: 1 << 20 * int64(k+5), Syncs: 100 + int64(a.syncsPerPayment*paid),
				SyncsCounted: !a.noSyncs}
			s.WriteBytes = int64(k+5)*4096 + int64(paid)*a.writePerPayment
			if a.limit > 0 { // 10 quota periods a second, all throttled in warm-up
				s.CPUPeriods = 10 * int64(k+5)
				s.CPUThrottled = 10*int64(min(k+5, 5)) + int64(a.throttled*10*m)
			}
			if k <= 0 {
				s.Phase = result.Warmup
			}
			if k == -5 {
				s.DataBytes = a.data0
			}
			if k == r.measured {
				s.DataBytes = a.data1
			}
			if r.edit != nil && !r.edit(&s) {
				continue
			}
			samples = append(samples, s)
		}
		if k >= 0 && k < r.measured {
			for j := range r.pps {
				end := at.Add(time.Duration(j+1) * time.Second / time.Duration(r.pps+1))
				recs = append(recs, result.Record{Case: caseID, Phase: result.Measure, Iteration: k / 10, Start: end.Add(-50 * time.Millisecond), End: end, Status: result.Succeeded})
			}
		}
		if k < 0 { // warm-up payments count for DB growth only
			recs = append(recs, result.Record{Case: caseID, Phase: result.Warmup, Start: at, End: at.Add(time.Millisecond), Status: result.Succeeded})
		}
	}
	// A failed measured payment: never in a denominator.
	recs = append(recs, result.Record{Case: caseID, Phase: result.Measure, Start: t0, End: t0.Add(time.Second / 2), Status: result.Failed, FailureReason: "NO_ROUTE"})
	return samples, recs
}

// realistic is AlicePaysBob with only bob limited to half a CPU: bob runs
// at 0.49 CPU, 14 syncs per payment (LND's published figure), 20 payments/s.
func realistic() run {
	return run{measured: 30, pps: 20, actors: []actorSpec{
		{name: "alice", role: usage.RoleNode, cpus: 0.31, syncsPerPayment: 9, writePerPayment: 40960, rss: 180 << 20, data0: 50 << 20, data1: 53 << 20},
		{name: "bob", role: usage.RoleNode, limit: 0.5, cpus: 0.49, syncsPerPayment: 14, writePerPayment: 61440, rss: 210 << 20, data0: 50 << 20, data1: 54 << 20},
		{name: "btcd", role: usage.RoleChain, cpus: 0.02, noSyncs: true, rss: 60 << 20},
		{name: "sampler", role: usage.RoleSampler, cpus: 0.003, noSyncs: true, rss: 20 << 20},
		{name: "harness", role: usage.RoleHarness, cpus: 0.012, noSyncs: true, rss: 90 << 20},
	}}
}

var probe = usage.DiskProbe{Storage: "disk", Path: "/tmp/probe", Seconds: 3, Syncs: 2700, SyncsPerSecond: 900}

func analyze(t *testing.T, r run, pps float64, probes ...usage.DiskProbe) Case {
	t.Helper()
	samples, recs := r.build()
	cs := Analyze(Input{Cases: []CaseInput{{ID: caseID, PaymentsPerSec: pps}}, Samples: samples, Payments: recs, HostCores: 2, Probes: probes})
	if len(cs) != 1 {
		t.Fatalf("%d cases", len(cs))
	}
	return cs[0]
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func actor(t *testing.T, c Case, name string) Actor {
	t.Helper()
	for _, a := range c.Actors {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("no actor %s in %+v", name, c.Actors)
	return Actor{}
}

func TestRealisticCPUBoundAtBob(t *testing.T) {
	c := analyze(t, realistic(), 20, probe)
	bob := actor(t, c, "bob")
	// Warm-up CPU (1.5 cores) and the failed payment stay out.
	near(t, "bob seconds", bob.Seconds, 30)
	if bob.Payments != 600 || bob.Intervals != 30 {
		t.Errorf("bob payments %d intervals %d, want 600 and 30", bob.Payments, bob.Intervals)
	}
	near(t, "bob CPU s", bob.CPUSeconds, 0.49*30)
	near(t, "bob CPU ms/payment", bob.CPUMsPerPayment, 24.5)
	near(t, "bob CPUs", bob.CPUs, 0.49)
	near(t, "bob utilisation", bob.Utilisation, 0.98)
	near(t, "bob syncs/payment", bob.SyncsPerPayment, 14)
	near(t, "bob syncs/s", bob.SyncsPerSec, 280)
	near(t, "bob bytes written/payment", bob.WriteBytesPerPayment, 61440+4096.0/20)
	if bob.Limit != 0.5 || bob.LimitIsHost {
		t.Errorf("bob limit %v host %v", bob.Limit, bob.LimitIsHost)
	}
	if bob.RSSPeakBytes != 210<<20+30000 {
		t.Errorf("bob RSS peak %d", bob.RSSPeakBytes)
	}
	// DB growth spans the case: 4 MiB over 600 measured + 5 warm-up payments.
	if !bob.DBGrowthKnown || bob.DBGrowthBytes != 4<<20 || bob.DBPayments != 605 {
		t.Errorf("bob DB growth %v %d over %d", bob.DBGrowthKnown, bob.DBGrowthBytes, bob.DBPayments)
	}
	near(t, "bob DB growth/payment", bob.DBGrowthBytesPerPayment, float64(4<<20)/605)
	alice := actor(t, c, "alice")
	if !alice.LimitIsHost || alice.Limit != 2 {
		t.Errorf("alice without a quota: limit %v host %v, want the host's 2 cores", alice.Limit, alice.LimitIsHost)
	}
	near(t, "alice utilisation", alice.Utilisation, 0.155)
	if actor(t, c, "btcd").SyncsCounted {
		t.Error("btcd had no sync counter")
	}
	// Order: nodes, chain, sampler, harness.
	var names []string
	for _, a := range c.Actors {
		names = append(names, a.Name)
	}
	if got := strings.Join(names, ","); got != "alice,bob,btcd,sampler,harness" {
		t.Errorf("actor order %s", got)
	}
	near(t, "nodes CPU ms/payment", c.NodesCPUMsPerPayment, 15.5+24.5)
	near(t, "nodes syncs/payment", c.NodesSyncsPerPayment, 9+14)
	near(t, "harness share", c.HarnessShare, 0.012/0.80)
	near(t, "sampler share", c.SamplerShare, 0.003/0.80)
	if !c.HasHarnessShare || !c.HasSamplerShare {
		t.Error("shares missing")
	}
	cl := c.Ceiling
	if cl == nil {
		t.Fatalf("no ceiling: %s", c.NoCeiling)
	}
	near(t, "ceiling", cl.PaymentsPerSec, 900.0/14)
	near(t, "ceiling utilisation", cl.Utilisation, 20/(900.0/14))
	if cl.Node != "bob" || cl.Storage != "disk" {
		t.Errorf("ceiling %+v", cl)
	}
	want := "bob CPU 98% of its 0.5-CPU limit; disk at 31% of its sync ceiling: CPU-bound at bob"
	if c.Verdict.Text != want || c.Verdict.Bound != "cpu" || c.Verdict.Actor != "bob" {
		t.Errorf("verdict %+v\nwant %q", c.Verdict, want)
	}
	if len(c.Notes) != 0 {
		t.Errorf("notes on clean samples: %q", c.Notes)
	}
	if len(c.Timeline) != 5*30 {
		t.Errorf("timeline has %d points, want 150", len(c.Timeline))
	}
}

func TestVerdicts(t *testing.T) {
	unlimited := func(cpus ...float64) run {
		r := realistic()
		for i := range r.actors {
			r.actors[i].limit = 0
		}
		r.actors[0].cpus, r.actors[1].cpus = cpus[0], cpus[1]
		return r
	}
	tests := []struct {
		name  string
		r     run
		pps   float64
		probe usage.DiskProbe
		bound string
		text  string
	}{
		{"idle", unlimited(0.2, 0.3), 20, probe, "none",
			"bob CPU 15% of the host's 2 cores (no limit); disk at 31% of its sync ceiling: no sampled resource saturated; bound not identified: commitment updates unknown (no node read its channels); no case of this network at another concurrency to compare"},
		{"host full", unlimited(0.9, 0.95), 20, probe, "host-cpu",
			"bob CPU 48% of the host's 2 cores (no limit); all actors 1.89 of the host's 2 cores (94%); disk at 31% of its sync ceiling: CPU-bound: the host's cores are full"},
		{"disk", unlimited(0.2, 0.3), 55, probe, "disk-sync",
			"bob CPU 15% of the host's 2 cores (no limit); disk at 86% of its sync ceiling: disk-sync-bound (bob's syncs)"},
		{"both: the fuller wins", realistic(), 64, probe, "disk-sync",
			"bob CPU 98% of its 0.5-CPU limit; disk at 100% of its sync ceiling: disk-sync-bound (bob's syncs) (also saturated: CPU-bound at bob)"},
		// CI's case: bob held to 0.2 CPU on a slow disk. A quota that
		// throttled is work seen waiting; the disk's figure is a ratio to
		// the probe's estimate, so the CPU wins though the disk reads fuller.
		{"throttled outranks a fuller disk", func() run {
			r := realistic()
			r.actors[1].cpus, r.actors[1].throttled = 0.48, 0.88
			return r
		}(), 64, probe, "cpu",
			"bob CPU 96% of its 0.5-CPU limit, throttled in 88% of its periods; disk at 100% of its sync ceiling: CPU-bound at bob (also saturated: disk-sync-bound (bob's syncs))"},
		{"throttled below 90%: saturated all the same", func() run {
			r := realistic()
			r.actors[1].cpus, r.actors[1].throttled = 0.37, 0.4
			return r
		}(), 20, probe, "cpu",
			"bob CPU 74% of its 0.5-CPU limit, throttled in 40% of its periods; disk at 31% of its sync ceiling: CPU-bound at bob"},
		{"rarely throttled", func() run {
			r := realistic()
			r.actors[1].cpus, r.actors[1].throttled = 0.37, 0.1
			return r
		}(), 20, probe, "none",
			"bob CPU 74% of its 0.5-CPU limit, throttled in 10% of its periods; disk at 31% of its sync ceiling: no sampled resource saturated; bound not identified: commitment updates unknown (no node read its channels); no case of this network at another concurrency to compare"},
		{"tmpfs without its probe", realistic(), 20, usage.DiskProbe{Storage: "tmpfs", SyncsPerSecond: 1e6}, "cpu",
			`bob CPU 98% of its 0.5-CPU limit; disk sync ceiling unknown (no disk probe for storage "disk"): CPU-bound at bob`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := analyze(t, tt.r, tt.pps, tt.probe)
			if c.Verdict.Bound != tt.bound || c.Verdict.Text != tt.text {
				t.Errorf("verdict %+v\nwant %s: %q", c.Verdict, tt.bound, tt.text)
			}
		})
	}
}

func TestMemoryBound(t *testing.T) {
	r := realistic()
	r.actors[0].memLimit = 190 << 20 // alice's RSS is 180 MiB
	c := analyze(t, r, 20, probe)
	// 95% memory, 98% CPU: the CPU is fuller.
	if !strings.Contains(c.Verdict.Text, "alice RSS 95% of its 190 MiB limit") || c.Verdict.Actor != "bob" {
		t.Errorf("verdict %+v", c.Verdict)
	}
	r.actors[1].limit = 0
	c = analyze(t, r, 20, probe)
	if c.Verdict.Bound != "memory" || c.Verdict.Actor != "alice" {
		t.Errorf("verdict %+v", c.Verdict)
	}
}

func TestNoSyncsCounted(t *testing.T) {
	r := realistic()
	for i := range r.actors {
		r.actors[i].noSyncs = true
	}
	c := analyze(t, r, 20, probe)
	if c.Ceiling != nil || c.NoCeiling != "no node's syncs were counted" {
		t.Errorf("ceiling %+v, reason %q", c.Ceiling, c.NoCeiling)
	}
	if actor(t, c, "bob").SyncsCounted || actor(t, c, "bob").SyncsPerPayment != 0 {
		t.Error("bob's syncs reported without a counter")
	}
	if want := "bob CPU 98% of its 0.5-CPU limit; disk sync ceiling unknown (no node's syncs were counted): CPU-bound at bob"; c.Verdict.Text != want {
		t.Errorf("verdict %q", c.Verdict.Text)
	}
}

func TestCounterReset(t *testing.T) {
	// bob restarts at second 12: his counters start again from zero.
	r := realistic()
	r.edit = func(s *usage.Sample) bool {
		if s.Actor == "bob" && !s.Time.Before(t0.Add(12*time.Second)) {
			back := 0.49 * 11.5 // what bob had at the restart, half a second before the sample
			s.CPUUserSeconds -= 0.8 * (7.5 + back)
			s.CPUSysSeconds -= 0.2 * (7.5 + back)
			s.Syncs -= 100 + int64(14*20*11.5)
			s.WriteBytes = 0
		}
		return true
	}
	c := analyze(t, r, 20, probe)
	bob := actor(t, c, "bob")
	if bob.Resets != 1 {
		t.Fatalf("resets %d", bob.Resets)
	}
	// The reset interval counts what the new process did since: the half
	// second before the restart is lost, nothing is negative.
	near(t, "bob CPU s", bob.CPUSeconds, 0.49*29.5)
	near(t, "bob syncs", float64(bob.Syncs), 14*20*29.5)
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "bob: 1 counter reset(s)") {
		t.Errorf("notes %q", c.Notes)
	}
}

func TestSampleGap(t *testing.T) {
	// alice's collector stalls from second 10 to 18: that interval is left
	// out with its payments, so per-payment figures are unchanged.
	r := realistic()
	r.edit = func(s *usage.Sample) bool {
		return !(s.Actor == "alice" && s.Time.After(t0.Add(10*time.Second)) && s.Time.Before(t0.Add(18*time.Second)))
	}
	c := analyze(t, r, 20, probe)
	alice := actor(t, c, "alice")
	near(t, "alice seconds", alice.Seconds, 22)
	if alice.Payments != 22*20 {
		t.Errorf("alice payments %d", alice.Payments)
	}
	near(t, "alice CPU ms/payment", alice.CPUMsPerPayment, 310.0/20)
	near(t, "alice syncs/payment", alice.SyncsPerPayment, 9)
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "alice: 1 sample gap(s) longer than 5s left out (8.0 s") {
		t.Errorf("notes %q", c.Notes)
	}
}

func TestSyncCounterAttachedLate(t *testing.T) {
	r := realistic()
	r.edit = func(s *usage.Sample) bool {
		if s.Actor == "bob" && s.Time.Before(t0.Add(10*time.Second)) {
			s.SyncsCounted, s.Syncs = false, 0
		}
		return true
	}
	c := analyze(t, r, 20, probe)
	bob := actor(t, c, "bob")
	near(t, "bob syncs/payment", bob.SyncsPerPayment, 14)
	near(t, "bob syncs/s", bob.SyncsPerSec, 280)
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "bob: syncs counted in 20 of 30 sampled intervals") {
		t.Errorf("notes %q", c.Notes)
	}
}

func TestNoSamples(t *testing.T) {
	c := analyze(t, run{measured: 10, pps: 5}, 5, probe)
	if len(c.Actors) != 0 || c.Verdict.Bound != "unknown" || c.Ceiling != nil || c.HasHarnessShare {
		t.Errorf("case without samples: %+v", c)
	}
}

func TestOtherCasesAndWarmupDoNotCount(t *testing.T) {
	samples, recs := realistic().build()
	other := append([]usage.Sample(nil), samples...)
	for i := range other {
		other[i].Case = "Concurrency=20/TotalPayments=100"
		other[i].Time = other[i].Time.Add(time.Hour)
		other[i].Network = "n2"
	}
	cs := Analyze(Input{Cases: []CaseInput{{ID: caseID, PaymentsPerSec: 20}}, Samples: append(samples, other...), Payments: recs, HostCores: 2})
	near(t, "bob CPU s", actor(t, cs[0], "bob").CPUSeconds, 0.49*30)
}

func TestWindow(t *testing.T) {
	samples, _ := realistic().build()
	u, ok := Window(samples, "bob", t0.Add(3*time.Second), t0.Add(13*time.Second), 2)
	if !ok {
		t.Fatal("no usage")
	}
	near(t, "bob CPUs", u.CPUs, 0.49)
	near(t, "bob %", u.Percent(), 98)
	near(t, "bob syncs/s", u.SyncsPerSec, 280)
	u, ok = Window(samples, "btcd", t0.Add(3500*time.Millisecond), t0.Add(5*time.Second), 2)
	if !ok || u.SyncsPerSec != -1 || u.Limit != 2 || u.Seconds != 2 {
		t.Errorf("btcd: %+v %v", u, ok)
	}
	if _, ok := Window(samples, "carol", t0, t0.Add(time.Second), 2); ok {
		t.Error("usage of an actor without samples")
	}
}

func TestActorWithoutMeasuredSamples(t *testing.T) {
	// carol's collector died during warm-up.
	r := realistic()
	r.actors = append(r.actors, actorSpec{name: "carol", role: usage.RoleNode, cpus: 0.2, noSyncs: true})
	r.edit = func(s *usage.Sample) bool { return s.Actor != "carol" || s.Phase == result.Warmup }
	c := analyze(t, r, 20, probe)
	for _, a := range c.Actors {
		if a.Name == "carol" {
			t.Error("carol in the table without measured samples")
		}
	}
	if len(c.Notes) != 1 || c.Notes[0] != "carol: no sample intervals in the measured iterations; left out of the table" {
		t.Errorf("notes %q", c.Notes)
	}
}

// An actor whose samples had no block-I/O source is "not measurable", not
// 0 written; one whose source answered in part of the intervals has its
// written bytes per payment over those intervals, with a note.
func TestWritesNotMeasurable(t *testing.T) {
	r := realistic()
	r.edit = func(s *usage.Sample) bool {
		switch s.Actor {
		case "btcd":
			s.IOSource, s.WriteBytes = usage.IONone, 0
		case "alice":
			s.IOSource = usage.IOProc
			if s.Time.Sub(t0) > 10*time.Second && s.Time.Sub(t0) <= 20*time.Second {
				s.IOSource, s.WriteBytes = usage.IONone, 0 // io unreadable for a while
			}
		case "bob":
			s.IOSource = usage.IOCgroup
		}
		return true
	}
	c := analyze(t, r, 20, probe)
	btcd, alice, bob := actor(t, c, "btcd"), actor(t, c, "alice"), actor(t, c, "bob")
	if !btcd.WritesNotMeasurable || btcd.WriteBytesPerPayment != 0 || btcd.WriteSource != "" {
		t.Fatalf("btcd: %+v", btcd)
	}
	if bob.WritesNotMeasurable || bob.WriteSource != usage.IOCgroup {
		t.Fatalf("bob: %+v", bob)
	}
	near(t, "bob written/payment", bob.WriteBytesPerPayment, 61440+4096.0/20)
	// alice: 30 intervals, of which 11..20 s and the one into 21 s touch a "none" sample.
	if alice.WritesNotMeasurable || alice.WriteSource != usage.IOProc {
		t.Fatalf("alice: %+v", alice)
	}
	near(t, "alice written/payment", alice.WriteBytesPerPayment, 40960+4096.0/20)
	if !strings.Contains(strings.Join(c.Notes, "\n"), "alice: written bytes read in 19 of 30 sampled intervals") {
		t.Fatalf("notes: %q", c.Notes)
	}
	// Streams written before io_source existed: measured, as before.
	old := actor(t, analyze(t, realistic(), 20, probe), "btcd")
	if old.WritesNotMeasurable {
		t.Fatalf("old stream: %+v", old)
	}
}

// The docker-proxy actor is its own row, after the harness, and its CPU
// counts in the harness's share: it carries only the harness's calls.
func TestProxyInHarnessShare(t *testing.T) {
	r := realistic()
	r.actors = append(r.actors, actorSpec{name: "docker-proxy", role: usage.RoleProxy, cpus: 0.068, noSyncs: true, rss: 8 << 20})
	c := analyze(t, r, 20, probe)
	if last := c.Actors[len(c.Actors)-1]; last.Name != "docker-proxy" || c.Actors[len(c.Actors)-2].Name != "harness" {
		t.Fatalf("order: %+v", c.Actors)
	}
	near(t, "harness share", c.HarnessShare, (0.012+0.068)/0.80)
	near(t, "proxy share", c.ProxyShare, 0.068/0.80)
	near(t, "nodes' CPU ms/payment", c.NodesCPUMsPerPayment, actor(t, c, "alice").CPUMsPerPayment+actor(t, c, "bob").CPUMsPerPayment)
}

// A duet: two like networks measured at once, one harness serving both.
// Its CPU is a share of both networks' nodes, not of one network's (which
// read twice the share); the case's own actors are still its network's.
func TestHarnessShareInADuet(t *testing.T) {
	r := realistic()
	a, recsA := r.build()
	b, recsB := r.build()
	for i := range b {
		b[i].Network, b[i].Case = "n2", "b/"+caseID
		b[i].Time = b[i].Time.Add(300 * time.Millisecond) // each sampler has its own instants
	}
	for i := range recsB {
		recsB[i].Case = "b/" + caseID
		recsB[i].Start, recsB[i].End = recsB[i].Start.Add(300*time.Millisecond), recsB[i].End.Add(300*time.Millisecond)
	}
	cs := Analyze(Input{Cases: []CaseInput{{ID: caseID, PaymentsPerSec: 20}, {ID: "b/" + caseID, PaymentsPerSec: 20}},
		Samples: append(a, b...), Payments: append(recsA, recsB...), HostCores: 2, Probes: []usage.DiskProbe{probe}})
	for _, c := range cs {
		// Within 3%: a span where the other network had not begun to
		// measure counts this network's nodes alone.
		if got, want := c.HarnessShare, 0.012/1.60; math.Abs(got/want-1) > 0.03 {
			t.Errorf("%s harness share = %v, want %v (one network's nodes: %v)", c.ID, got, want, 0.012/0.80)
		}
		near(t, c.ID+" nodes CPU ms/payment", c.NodesCPUMsPerPayment, 15.5+24.5)
		near(t, c.ID+" sampler share", c.SamplerShare, 0.003/0.80)
	}
}

// Sequential: the other network's samples were taken at other times (or
// while it idled), so each case's harness share is its own network's.
func TestHarnessShareSequentialAndIdle(t *testing.T) {
	r := realistic()
	a, recsA := r.build()
	b, recsB := r.build()
	for i := range b {
		b[i].Network, b[i].Case = "n2", "b/"+caseID
		b[i].Time = b[i].Time.Add(time.Hour)
	}
	for i := range recsB {
		recsB[i].Case, recsB[i].End = "b/"+caseID, recsB[i].End.Add(time.Hour)
	}
	// An idle third network sampled alongside n1, never measuring.
	idle, _ := r.build()
	for i := range idle {
		idle[i].Network, idle[i].Case, idle[i].Phase = "n3", "c/"+caseID, result.Warmup
	}
	cs := Analyze(Input{Cases: []CaseInput{{ID: caseID, PaymentsPerSec: 20}, {ID: "b/" + caseID, PaymentsPerSec: 20}},
		Samples: append(append(a, b...), idle...), Payments: append(recsA, recsB...), HostCores: 2, Probes: []usage.DiskProbe{probe}})
	for _, c := range cs {
		near(t, c.ID+" harness share", c.HarnessShare, 0.012/0.80)
	}
}

// A node on db=postgres leaves its syncs and part of its CPU to the
// database server: the server's syncs set the disk's ceiling and its CPU
// counts with the nodes'.
func TestDatabaseServerCountsWithTheNodes(t *testing.T) {
	r := realistic()
	r.actors[0].syncsPerPayment, r.actors[1].syncsPerPayment = 0.5, 0.5
	r.actors = append(r.actors, actorSpec{name: "postgres", role: usage.RoleDatabase, cpus: 0.2, syncsPerPayment: 11, rss: 100 << 20})
	c := analyze(t, r, 20, probe)
	if c.Ceiling == nil || c.Ceiling.Node != "postgres" {
		t.Fatalf("ceiling %+v (%s), want postgres's", c.Ceiling, c.NoCeiling)
	}
	near(t, "ceiling", c.Ceiling.PaymentsPerSec, 900.0/11)
	pg := actor(t, c, "postgres")
	near(t, "nodes CPU ms/payment", c.NodesCPUMsPerPayment, 15.5+24.5+pg.CPUMsPerPayment)
	var names []string
	for _, a := range c.Actors {
		names = append(names, a.Name)
	}
	if got := strings.Join(names, ","); got != "alice,bob,postgres,btcd,sampler,harness" {
		t.Errorf("actor order %s", got)
	}
}
