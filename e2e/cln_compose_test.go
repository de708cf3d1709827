//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/record/traces"
)

// TestCLNCompose runs Core Lightning in containers (the default backend
// where an engine answers): AlicePaysBob on two CLN nodes through the CLI
// with bob's container restarted mid-run, then payments crossing implementations at every hop, an LND alice and
// bob around a CLN carol and a CLN alice and bob around an LND carol, with
// the middle node's forwards counted by its own driver, and sample-loop.sh
// by hand in a CLN container. Each run's compose
// file publishes only on 127.0.0.1 and nothing of it is left in Docker.
func TestCLNCompose(t *testing.T) {
	// In the stream beside the Docker tests (test.sh): its runs are
	// unique compose projects.
	t.Parallel()
	bin := composeSetup(t)
	spec := clnSpec(t)
	t.Run("AlicePaysBob", func(t *testing.T) {
		// Open loop at 10/s for 30 s with bob's container restarted at 2 s:
		// faults work on CLN containers, and lnbench waits for bob's
		// channel to be normal again. 30 s, not 15: CI's busy machine
		// restarted bob in 7.2 s, the channel normal at 9.4 s, and none of
		// the 56 payments left in a 15 s loop succeeded (a quiet machine:
		// 4.7 s, every payment from 7 s on succeeded).
		scen := composeScenarioFile(t, fmt.Sprintf(`name: %s
topology: AlicePaysBob
nodes: [{name: cln, spec: %q}]
params: {Rate: [10], TotalPayments: [300]}
job: {WarmupCount: 0, IterationCount: 1}
faults: ["restart bob at 2s"]
`, composeUniqueName("CLNCompose"), spec))
		// The first run builds the CLN image (apt-get of its runtime
		// libraries and perf inside docker build).
		r := startCompose(t, bin, scen)
		r.finish(12 * time.Minute)
		dir := r.dir()
		_, be, _ := composeSummary(t, dir)
		rep := readSummary(t, dir)
		if be != "compose" || len(rep.Nodes) != 1 || rep.Nodes[0].Implementation != "cln" {
			t.Fatalf("backend %q nodes %+v", be, rep.Nodes)
		}
		faults := faultRecords(t, dir)
		if len(faults) != 1 || faults[0].Error != "" || faults[0].ChannelsActive.Before(faults[0].End) {
			t.Fatalf("restart record: %+v", faults)
		}
		after := 0
		outcomes := map[string]int{} // of the payments started after the channel was normal
		for _, p := range readRecords(t, dir) {
			if !p.Start.After(faults[0].ChannelsActive) {
				continue
			}
			outcomes[strings.TrimSpace(p.Status+" "+p.FailureReason)]++
			if p.Status == result.Succeeded {
				after++
			}
		}
		if after == 0 {
			t.Errorf("no payment succeeded after bob's channel was normal again; their outcomes: %v", outcomes)
		}
		t.Logf("CLN bob (container) restart: answering after %v, channel normal after %v; %d payments succeeded after",
			faults[0].End.Sub(faults[0].Start), faults[0].ChannelsActive.Sub(faults[0].Start), after)
		f := checkComposeFile(t, dir)
		if ports := f.Services["alice"].portStrings(); len(ports) != 1 || !strings.HasSuffix(ports[0], ":9835") {
			t.Errorf("alice publishes %v; want only lightningd's RPC bridge (9835) on loopback", ports)
		}
		logs, _ := filepath.Glob(filepath.Join(dir, "nodes", "*", "bob", "lightningd.log"))
		if len(logs) != 1 {
			t.Errorf("bob's lightningd.log not collected: %v", logs)
		} else if log, _ := os.ReadFile(logs[0]); strings.Count(string(log), "Server started with public key") != 2 {
			t.Errorf("bob's lightningd.log does not show two starts:\n%s", log)
		}
		r.checkNothingLeft()
	})
	// docker-fragments/scripts' manual loop in a CLN container: perfserve
	// answers on 127.0.0.1:6060 there as lnd's pprof does in LND's.
	t.Run("SampleLoopViaDockerExec", func(t *testing.T) {
		scen := composeScenarioFile(t, fmt.Sprintf(`name: %s
topology: AlicePaysBob
nodes: [{name: cln, spec: %q}]
params: {Concurrency: [4], TotalPayments: [5000]}
job: {WarmupCount: 0, IterationCount: 1}
`, composeUniqueName("CLNSampleLoop"), spec))
		r := startCompose(t, bin, scen)
		dir := r.waitPayments(20, 5*time.Minute)
		// Root frames are process names; lightning_* are CLN's subdaemons.
		sampleLoopViaDockerExec(t, r, dir, "bob", "lightning_")
		r.interrupt()
		r.checkNothingLeft()
	})
	// The CLN carol between LND nodes is also profiled per iteration by
	// the sampler sidecar, reading perf from carol's container
	// (lightningd-bridged.sh starts lnbench perfserve there).
	for _, c := range []struct{ name, ends, middle, extra string }{
		{"LNDViaCLNCarol", "", fmt.Sprintf(", node: %q", spec), "sampling: {mode: iteration}\n"},
		{"CLNViaLNDCarol", fmt.Sprintf(", node: %q", spec), "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			scen := carolRunFiles(t, c.name, c.ends, c.middle,
				fmt.Sprintf("name: %s\ntopology: topology.yml\nparams: {Concurrency: [4], TotalPayments: [60]}\njob: {WarmupCount: 0, IterationCount: 1}\n%s", composeUniqueName(c.name), c.extra))
			r := startCompose(t, bin, scen)
			r.finish(8 * time.Minute)
			run := r.dir()
			succeeded := checkAllSucceeded(t, run, 60)
			_, _, forwards := composeSummary(t, run)
			// +1: the network's warm-up payment (network.WarmUp).
			if forwards["carol"] != succeeded+1 {
				t.Errorf("carol forwarded %d, want %d payments + 1 warm-up; forwards %v", forwards["carol"], succeeded, forwards)
			}
			// LND payers report their route; CLN's pay does not (Hops 0,
			// "unknown" in the report), and carol's count above shows it.
			for _, rec := range readRecords(t, run) {
				if rec.Phase == result.Measure && rec.Hops != 2 && (c.ends == "" || rec.Hops != 0) {
					t.Fatalf("payment did not cross carol: %+v", rec)
				}
			}
			if c.extra != "" {
				ws, err := traces.ReadIndex(run)
				if err != nil {
					t.Fatal(err)
				}
				// 0: carol's cgroup counts perf and perfserve too, so its
				// CPU time is not the node's alone (logged, not compared).
				checkCLNProfiles(t, run, ws, "carol", 0)
				t.Logf("carol's container used %.1f CPU s in all", cpuSeconds(t, run)["carol"])
			}
			r.checkNothingLeft()
		})
	}
}

// checkAllSucceeded checks that the run measured want payments, all
// succeeded, and returns how many succeeded in all (warm-ups too).
func checkAllSucceeded(t *testing.T, dir string, want int) int {
	t.Helper()
	measuredN, succeeded := 0, 0
	for _, r := range readRecords(t, dir) {
		if r.Status == result.Succeeded {
			succeeded++
		}
		if r.Phase != result.Measure {
			continue
		}
		measuredN++
		if r.Status != result.Succeeded {
			t.Errorf("payment %d: %s %s", r.Seq, r.Status, r.FailureReason)
		}
	}
	if measuredN != want {
		t.Errorf("%d measured payments, want %d", measuredN, want)
	}
	return succeeded
}
