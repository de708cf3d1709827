package report

import (
	"time"

	"github.com/lnbench/lnbench/internal/envinfo"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage"
)

// resActor is one actor's steady behaviour in the resources fixture.
type resActor struct {
	name, role      string
	limit, cpus     float64
	syncsPerPayment float64 // with counted
	counted         bool
	writePerPayment int64
	rss             int64
	data0, data1    int64
}

// resourceFixture is AlicePaysBob at Concurrency=10 with only bob limited to
// half a CPU, on disk and on tmpfs, each with resource sampling on and off:
// 6 measured iterations of 100 payments after a 5 s warm-up. Bob runs at
// 0.49 CPU and makes 14 syncs per payment (LND's published figure), alice
// 9; on tmpfs the same CPU buys more payments/s and no block is written.
// The off cases run 0.5% faster, their iteration times in another order
// (within noise). Samples are taken every second, cases 100 s apart.
func resourceFixture() ([]result.Record, []usage.Sample) {
	var recs []result.Record
	var samples []usage.Sample
	actors := []resActor{
		{name: "alice", role: usage.RoleNode, cpus: 0.31, syncsPerPayment: 9, counted: true, writePerPayment: 40 << 10, rss: 182 << 20, data0: 50 << 20, data1: 53 << 20},
		{name: "bob", role: usage.RoleNode, limit: 0.5, cpus: 0.49, syncsPerPayment: 14, counted: true, writePerPayment: 60 << 10, rss: 214 << 20, data0: 50 << 20, data1: 54 << 20},
		{name: "btcd", role: usage.RoleChain, cpus: 0.021, rss: 61 << 20},
		{name: "sampler", role: usage.RoleSampler, cpus: 0.0031, rss: 19 << 20},
		{name: "harness", role: usage.RoleHarness, cpus: 0.0117, rss: 88 << 20},
	}
	for ci, id := range []string{
		"Concurrency=10/Storage=disk/ResourceSampling=on", "Concurrency=10/Storage=disk/ResourceSampling=off",
		"Concurrency=10/Storage=tmpfs/ResourceSampling=on", "Concurrency=10/Storage=tmpfs/ResourceSampling=off",
	} {
		tc := t0.Add(time.Duration(ci) * 100 * time.Second)
		tmpfs, on := ci >= 2, ci%2 == 0
		base := 5.0 // seconds per iteration of 100 payments
		if tmpfs {
			base = 4.2
		}
		var ends []time.Time // successful payments' ends, for the counters
		for j := range 20 {  // warm-up
			end := tc.Add(-5*time.Second + time.Duration(j)*250*time.Millisecond)
			recs = append(recs, result.Record{Case: id, Phase: result.Warmup, Worker: j % 10, Seq: j, Payer: "alice", Payee: "bob", Mode: "invoice",
				Start: end.Add(-400 * time.Millisecond), End: end, Status: result.Succeeded, Hops: 1})
			ends = append(ends, end)
		}
		for i := range 6 {
			step := i % 3
			if !on {
				step = (i + 1) % 3
			}
			dur := time.Duration((base + 0.05*float64(step)) * float64(time.Second))
			if !on {
				dur = dur * 995 / 1000 // half a percent faster unobserved: within noise
			}
			start := tc.Add(time.Duration(i) * 5200 * time.Millisecond)
			lat := 400 * time.Millisecond
			for j := range 100 {
				s := start.Add((dur - lat) * time.Duration(j) / 99)
				r := result.Record{Case: id, Phase: result.Measure, Iteration: i, Worker: j % 10, Seq: j, Payer: "alice", Payee: "bob", Mode: "invoice",
					Start: s, End: s.Add(lat), PaymentNs: int64(lat), Status: result.Succeeded, Hops: 1}
				if i == 4 && j == 50 {
					r.Status, r.FailureReason = result.Failed, "FAILURE_REASON_TIMEOUT"
				} else {
					ends = append(ends, r.End)
				}
				recs = append(recs, r)
			}
		}
		if !on {
			continue
		}
		paidBy := func(t time.Time) int {
			n := 0
			for _, e := range ends {
				if !e.After(t) {
					n++
				}
			}
			return n
		}
		origin := tc.Add(-6 * time.Second)
		for k := -6; k <= 33; k++ {
			at := tc.Add(time.Duration(k) * time.Second)
			for _, a := range actors {
				el := at.Sub(origin).Seconds()
				paid := paidBy(at)
				s := usage.Sample{Time: at, Network: "n" + id, Case: id, Phase: result.Measure, Iteration: min(k/5, 5), Actor: a.name, Role: a.role,
					Source: usage.SourceCgroupV1, CPUUserSeconds: 0.85 * a.cpus * el, CPUSysSeconds: 0.15 * a.cpus * el, CPULimit: a.limit,
					RSSBytes: a.rss + int64(k+6)*64<<10, Syncs: 40 + int64(a.syncsPerPayment*float64(paid)), SyncsCounted: a.counted}
				if !tmpfs {
					s.WriteBytes = 1<<20 + int64(paid)*a.writePerPayment
					s.WriteOps = s.WriteBytes / 4096
				}
				switch {
				case k <= 0:
					s.Phase, s.Iteration = result.Warmup, 0
				case k > 31:
					s.Case, s.Phase, s.Iteration = "", "", 0
				}
				if k == -6 {
					s.DataBytes = a.data0
				}
				if k == 31 {
					s.DataBytes = a.data1
				}
				if a.data0 == 0 {
					s.DataBytes = 0
				}
				samples = append(samples, s)
			}
		}
	}
	return recs, samples
}

func fixtureResourceReport() Report {
	s := scenario.Scenario{Name: "AlicePaysBob", Method: "RunAlicePaysBob", Topology: "AlicePaysBob",
		Params: []scenario.Param{{Name: "Concurrency", Values: []string{"10"}}, {Name: "Storage", Values: []string{"disk", "tmpfs"}},
			{Name: "ResourceSampling", Values: []string{"on", "off"}}},
		Job:  scenario.Job{LaunchCount: 1, WarmupCount: 1, IterationCount: 6, InvocationCount: 1},
		Node: scenario.Node{Implementation: "lnd", Version: "v0.21.0-beta", DBBackend: "bbolt"}}
	r := Report{Manifest: record.Manifest{RunID: "20260102T030405Z-AlicePaysBob-resources", Started: t0, Finished: t0.Add(7 * time.Minute), Scenario: s, Backend: "compose",
		Env:               envinfo.Env{OS: "Debian GNU/Linux 12 (bookworm)", Kernel: "6.1.0", CPU: "AMD EPYC", Cores: 2, MemoryMiB: 4096, GoVersion: "go1.26.8"},
		Nodes:             []record.NodeInfo{{Implementation: "lnd", Version: "v0.21.0-beta", Flags: []string{"--bitcoin.simnet", "--db.backend=bbolt"}}},
		HarnessCPUSeconds: 5.1, WallSeconds: 420,
		DiskProbes: []usage.DiskProbe{{Storage: "disk", Path: "/var/tmp/lnbench-probe", Filesystem: "ext4", Seconds: 3, Syncs: 2712, SyncsPerSecond: 904},
			{Storage: "tmpfs", Path: "/dev/shm/lnbench-probe", Filesystem: "tmpfs", Seconds: 3, Syncs: 1353000, SyncsPerSecond: 451000}}}}
	recs, samples := resourceFixture()
	Summarize(&r, recs)
	SummarizeResources(&r, samples, recs)
	return r
}
