package report

import (
	"time"

	"github.com/lnbench/lnbench/internal/envinfo"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/scenario"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// fixtureRecords is a fixed synthetic run of two cases, 8 iterations of 4
// payments each: Concurrency=10 is steady but for a slow last iteration
// (an outlier); Concurrency=20 drifts 8 ms per iteration and has one failure.
func fixtureRecords() []result.Record {
	var recs []result.Record
	ms := time.Millisecond
	for ci, conc := range []string{"10", "20"} {
		id := "Concurrency=" + conc + "/TotalPayments=4"
		for i := range 8 {
			start := t0.Add(time.Duration(ci)*100*time.Second + time.Duration(i)*2*time.Second)
			for j := range 4 {
				lat := time.Duration(100+10*j+(i%3)*5) * ms
				if ci == 0 && i == 7 && j == 3 {
					lat = 400 * ms
				}
				if ci == 1 {
					lat = time.Duration(150+20*j+8*i) * ms
				}
				r := result.Record{Case: id, Phase: result.Measure, Iteration: i, Worker: j, Seq: j, Payer: "alice", Payee: "bob",
					Mode: "invoice", Start: start, End: start.Add(lat), PaymentNs: int64(lat), Status: result.Succeeded, Hops: 1}
				if ci == 1 && i == 3 && j == 3 {
					r.Status, r.FailureReason = result.Failed, "NO_ROUTE"
				}
				recs = append(recs, r)
			}
		}
	}
	return recs
}

func fixtureReport() Report {
	s := scenario.Scenario{Name: "AlicePaysBob", Method: "RunAlicePaysBob", Topology: "AlicePaysBob",
		Params: []scenario.Param{{Name: "Concurrency", Values: []string{"10", "20"}}, {Name: "TotalPayments", Values: []string{"4"}}},
		Job:    scenario.Job{LaunchCount: 1, WarmupCount: 1, IterationCount: 8, InvocationCount: 1},
		Node:   scenario.Node{Implementation: "lnd", Version: "v0.21.0-beta", DBBackend: "bbolt"}}
	r := Report{Manifest: record.Manifest{RunID: "20260102T030405Z-AlicePaysBob", Started: t0, Finished: t0.Add(time.Minute), Scenario: s, Backend: "local",
		Env:               envinfo.Env{OS: "Debian GNU/Linux 12 (bookworm)", Kernel: "6.1.0", CPU: "AMD EPYC", Cores: 2, MemoryMiB: 4096, GoVersion: "go1.26.8"},
		Nodes:             []record.NodeInfo{{Implementation: "lnd", Version: "v0.21.0-beta", Flags: []string{"--bitcoin.simnet", "--db.backend=bbolt"}}},
		Setup:             []record.Setup{{Network: "launch1", Phase: "chain", Seconds: 0.25}, {Network: "launch1", Phase: "nodes", Seconds: 5}},
		Teardown:          []record.Setup{{Network: "launch1", Phase: "samplers", Seconds: 0.5}, {Network: "launch1", Phase: "logs", Seconds: 0.25}, {Network: "launch1", Phase: "teardown", Seconds: 11}},
		HarnessCPUSeconds: 1.5, WallSeconds: 60}}
	Summarize(&r, fixtureRecords())
	return r
}

// fixtureSpecRecords is a run of two node specs × two cases, 4 launches of
// 2 iterations of 4 payments each; each launch round moves both specs' times
// alike (drift), and each launch a little on its own. On Concurrency=10 the
// patched spec takes 1.3× as long as the baseline (slower); on
// Concurrency=20 its iterations take the baseline's times in another order
// (no change, not yet shown with 4 launches).
func fixtureSpecRecords() []result.Record {
	var recs []result.Record
	ms := time.Millisecond
	for si, spec := range []string{"v0.21.0-beta", "patched"} {
		for ci, conc := range []string{"10", "20"} {
			id := "Node=" + spec + "/Concurrency=" + conc + "/TotalPayments=4"
			for i := range 8 {
				start := t0.Add(time.Duration(2*si+ci)*100*time.Second + time.Duration(i)*2*time.Second)
				step := i % 3
				if si == 1 && ci == 1 {
					step = (i + 1) % 3
				}
				drift := []float64{1.00, 1.08, 0.94, 1.04}[i/2]
				own := []float64{1.00, 1.01, 0.98, 1.015, 0.995, 1.02, 0.99, 1.005}[si*4+i/2]
				for j := range 4 {
					lat := time.Duration(float64(100+10*j+step*5) * drift * own * float64(ms))
					if si == 1 && ci == 0 {
						lat = lat * 13 / 10
					}
					recs = append(recs, result.Record{Case: id, Phase: result.Measure, Iteration: i, Worker: j, Seq: j, Payer: "alice", Payee: "bob",
						Mode: "invoice", Start: start, End: start.Add(lat), PaymentNs: int64(lat), Status: result.Succeeded, Hops: 1})
				}
			}
		}
	}
	return recs
}

// fixtureSpecReport compares a release (the baseline) with a patched
// source tree; Node is the leading param as the runner expands it.
func fixtureSpecReport() Report {
	r := fixtureReport()
	r.RunID = "20260102T030405Z-AlicePaysBob-specs"
	r.Scenario.Params = append([]scenario.Param{{Name: "Node", Values: []string{"v0.21.0-beta", "patched"}}}, r.Scenario.Params...)
	flags := []string{"--bitcoin.simnet", "--db.backend=bbolt", "--db.batch-commit-interval=10ms"}
	r.Nodes = []record.NodeInfo{
		{Label: "v0.21.0-beta", Baseline: true, Implementation: "lnd", Version: "v0.21.0-beta", Build: "lnd@v0.21.0-beta",
			Key: "3f2a9c1e5b7d4a6f8e0c2b1d3f5a7c9e", GoVersion: "go1.26.8", Profile: "tuned+bbolt", Image: "lnbench/lnd:3f2a9c1e5b7d",
			Flags: flags, Nodes: []string{"Alice", "Bob"}},
		{Label: "patched", Implementation: "lnd", Version: "src", Build: "lnd@src:/home/dev/lnd", Key: "b7c4e2a1f0d9c8b7a6e5d4c3",
			Source: "/home/dev/lnd", Commit: "9e8d7c6b5a4f3e2d1c0b9a8f", Dirty: true, GoVersion: "go1.26.8", Tags: []string{"kvdb_sqlite"},
			PGOHash: "c0ffee0123456789abcdef", Profile: "tuned+bbolt", Image: "lnbench/lnd:b7c4e2a1f0d9", Flags: flags, Nodes: []string{"Alice", "Bob"}},
	}
	r.Scenario.Job.LaunchCount, r.Scenario.Job.IterationCount = 4, 2
	r.Design = &record.Design{Name: DesignSequential, Order: scenario.OrderABBA,
		Rounds: [][]string{{"v0.21.0-beta", "patched"}, {"patched", "v0.21.0-beta"}, {"v0.21.0-beta", "patched"}, {"patched", "v0.21.0-beta"}}}
	Summarize(&r, fixtureSpecRecords())
	return r
}
