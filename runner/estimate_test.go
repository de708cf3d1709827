package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend/compose"
	"github.com/lnbench/lnbench/backend/local"
	"github.com/lnbench/lnbench/backend/swarm"
	"github.com/lnbench/lnbench/node/cln"
	"github.com/lnbench/lnbench/node/drivers"
	"github.com/lnbench/lnbench/nodespec"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/snapshot"
)

// around is what the local backend adds to a plan of networks and
// iterations: each network's close and each iteration's gap.
func around(networks, iterations int) time.Duration {
	o := local.Driver{}.Caps().Overhead
	return time.Duration(networks)*o.Close + time.Duration(iterations)*o.BetweenIterations
}

// restore is a 2-node network's restore on the local backend.
var restore = local.Driver{}.Caps().Overhead.Restore

func TestEstimate(t *testing.T) {
	job := scenario.Job{LaunchCount: 1, WarmupCount: 1, IterationCount: 9, InvocationCount: 1}
	tests := []struct {
		name     string
		topology string
		params   []scenario.Param
		job      scenario.Job
		networks int
		want     time.Duration
		wantErr  string
	}{
		// 10 s setup + 10 iterations of 60 payments at the typical 60/s.
		{"closed loop", "AlicePaysBob", []scenario.Param{{Name: "Concurrency", Values: []string{"20"}}, {Name: "TotalPayments", Values: []string{"60"}}}, job, 1, 20*time.Second + around(1, 10), ""},
		// One worker pays one payment at a time, 85 ms each: 10 × 60 × 85 ms.
		{"one worker", "AlicePaysBob", []scenario.Param{{Name: "TotalPayments", Values: []string{"60"}}}, job, 1, 10*time.Second + 51*time.Second + around(1, 10), ""},
		// Open loop at 30/s: 2 s per iteration.
		{"open loop", "AlicePaysBob", []scenario.Param{{Name: "TotalPayments", Values: []string{"60"}}, {Name: "Rate", Values: []string{"30"}}}, job, 1, 30*time.Second + around(1, 10), ""},
		// TotalPayments defaults to 100 (2 s at 50/s); two carols add 4 s of setup.
		{"defaults and extra nodes", "AlicePaysBobViaCarol", []scenario.Param{{Name: "CarolsCount", Values: []string{"2"}}, {Name: "Rate", Values: []string{"50"}}}, job, 1,
			14*time.Second + 20*time.Second + around(1, 10), ""},
		// A timed job: setup + one warm-up iteration + its duration, whatever IterationCount says.
		{"timed", "AlicePaysBob", []scenario.Param{{Name: "Concurrency", Values: []string{"20"}}, {Name: "TotalPayments", Values: []string{"60"}}},
			scenario.Job{LaunchCount: 1, WarmupCount: 1, IterationCount: 0, InvocationCount: 1, Duration: 10 * time.Minute}, 1,
			10*time.Second + time.Second + 10*time.Minute + around(1, 1), ""},
		// Two cases on fresh networks each.
		{"two networks", "AlicePaysBob", []scenario.Param{{Name: "Concurrency", Values: []string{"20"}}, {Name: "TotalPayments", Values: []string{"60", "120"}}}, job, 2,
			2*10*time.Second + 10*time.Second + 20*time.Second + around(2, 20), ""},
		{"bad topology param", "AlicePaysBobViaCarol", []scenario.Param{{Name: "CarolsCount", Values: []string{"60"}}}, job, 0, 0, "CarolsCount=60"},
	}
	for _, tt := range tests {
		s := scenario.Default()
		s.Topology, s.Params, s.Job = tt.topology, tt.params, tt.job
		networks, d, _, err := Estimate(s, local.Driver{}.Caps().Overhead)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err %v, want containing %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || networks != tt.networks || d != tt.want {
			t.Errorf("%s: %d network(s), %v, %v; want %d, %v", tt.name, networks, d, err, tt.networks, tt.want)
		}
	}
}

func TestEstimateWarnsOnExplosion(t *testing.T) {
	s := scenario.Default()
	s.Params = []scenario.Param{{Name: "Concurrency", Values: []string{"1", "2", "3", "4", "5", "6"}}, {Name: "AmountSat", Values: []string{"1", "2", "3", "4", "5", "6"}}}
	if _, _, warn, err := Estimate(s, local.Driver{}.Caps().Overhead); err != nil || !strings.Contains(warn, "36 cases") {
		t.Errorf("warning %q, err %v", warn, err)
	}
	if _, _, warn, _ := Estimate(scenario.Default(), local.Driver{}.Caps().Overhead); warn != "" {
		t.Errorf("the default scenario warns: %q", warn)
	}
}

// A sampled graph file says so beside the plan line; a whole one says nothing.
func TestEstimateNamesAGraphSample(t *testing.T) {
	s := scenario.Default()
	s.Topology = "../topology/testdata/describegraph12.json"
	s.Params = []scenario.Param{{Name: "NodeCount", Values: []string{"8"}}}
	if _, _, warn, err := Estimate(s, local.Driver{}.Caps().Overhead); err != nil || warn != "topology describegraph-n8-seed1: sampled 8 of 12 nodes of describegraph12.json (NodeCount=8; leave NodeCount out to run the whole graph)" {
		t.Errorf("warning %q, err %v", warn, err)
	}
	s.Params = nil
	if _, _, warn, err := Estimate(s, local.Driver{}.Caps().Overhead); err != nil || warn != "" {
		t.Errorf("whole graph: warning %q, err %v", warn, err)
	}
}

// Under snapshots a network is built once per distinct snapshot and every
// launch restores: 3 launches of AlicePaysBob with 60 payments × 10
// iterations (10 s each) are one build (10 s) and three restores (3 s
// each); with the snapshot cached, only the restores.
func TestEstimateRestoredBuildsEachSnapshotOnce(t *testing.T) {
	s := scenario.Default()
	s.Topology, s.Params = "AlicePaysBob", []scenario.Param{{Name: "Concurrency", Values: []string{"20"}}, {Name: "TotalPayments", Values: []string{"60"}}}
	s.Job = scenario.Job{LaunchCount: 3, WarmupCount: 1, IterationCount: 9, InvocationCount: 1}
	opts := Options{Scenario: s, BackendName: "local", Snapshots: &SnapshotOptions{Cache: snapshot.Cache{Dir: t.TempDir()}, Chain: "btcd-key"}}
	d, cached, networks, err := EstimateRestored(opts, local.Driver{}.Caps().Overhead)
	if err != nil {
		t.Fatal(err)
	}
	if want := 10*time.Second + 3*(restore+10*time.Second) + around(3, 30); d != want || cached != 0 || networks != 3 {
		t.Errorf("empty cache: %v, %d of %d cached; want %v, 0 of 3", d, cached, networks, want)
	}
	configs, _, err := NodeSetup(drivers.Builtin(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	plans, _ := plan(s)
	facts := snapshotFacts("local", plans[0].topo, configs, "btcd-key", s.Node.DBBackend, s.Node.Flags)
	dir := filepath.Join(t.TempDir(), "alice")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := opts.Snapshots.Cache.Save(snapshot.Manifest{Key: snapshot.Key(facts), Facts: facts}, map[string]string{"alice": dir}); err != nil {
		t.Fatal(err)
	}
	d, cached, _, err = EstimateRestored(opts, local.Driver{}.Caps().Overhead)
	if want := 3*(restore+10*time.Second) + around(3, 30); err != nil || d != want || cached != 3 {
		t.Errorf("cached: %v, %d of 3 cached (%v); want %v, 3", d, cached, err, want)
	}
}

// With Specs, only those node specs' networks restore: an A/A of a and b,
// 2 launches each, b restored: three builds (a's two, b's snapshot) and
// two restores.
func TestEstimateRestoredOnlyForItsSpecs(t *testing.T) {
	s := scenario.Default()
	s.Topology, s.Params = "AlicePaysBob", []scenario.Param{{Name: "Concurrency", Values: []string{"20"}}, {Name: "TotalPayments", Values: []string{"60"}}}
	s.Job = scenario.Job{LaunchCount: 2, WarmupCount: 1, IterationCount: 9, InvocationCount: 1}
	s.Nodes, _ = scenario.ParseNodeFlags([]string{"a=lnd@v0.21.0-beta", "b=lnd@v0.21.0-beta"})
	s.Baseline = "a"
	opts := Options{Scenario: s, BackendName: "local", Snapshots: &SnapshotOptions{Cache: snapshot.Cache{Dir: t.TempDir()}, Chain: "btcd-key", Specs: []string{"b"}}}
	d, cached, restored, err := EstimateRestored(opts, local.Driver{}.Caps().Overhead)
	if err != nil {
		t.Fatal(err)
	}
	if want := 3*10*time.Second + 2*restore + 4*10*time.Second + around(4, 40); d != want || cached != 0 || restored != 2 {
		t.Errorf("%v, %d cached, %d restored; want %v, 0, 2", d, cached, restored, want)
	}
}

// A Core Lightning network's build waits on its 30 s chain poll twice
// (funds, then channels confirmed): an LND one does not.
func TestEstimateCountsCLNsBlockWaits(t *testing.T) {
	s := scenario.Default()
	s.Topology = "AlicePaysBob"
	s.Params = []scenario.Param{{Name: "Concurrency", Values: []string{"20"}}, {Name: "TotalPayments", Values: []string{"60"}}}
	s.Job = scenario.Job{LaunchCount: 1, WarmupCount: 1, IterationCount: 9, InvocationCount: 1}
	_, lnd, _, err := Estimate(s, local.Driver{}.Caps().Overhead)
	if err != nil {
		t.Fatal(err)
	}
	s.Nodes = []nodespec.Spec{{Label: "cln", Build: "cln@src:/tmp/lightning"}}
	_, clnEst, _, err := Estimate(s, local.Driver{}.Caps().Overhead)
	if err != nil {
		t.Fatal(err)
	}
	// Two waits on lightningd's chain poll.
	if want := 2 * cln.PollSeconds * time.Second; clnEst-lnd != want {
		t.Errorf("CLN's estimate %v, LND's %v: want %v more", clnEst, lnd, want)
	}
}

// The default comparison on compose, estimated against what its parts
// took when measured (docs/measured.md, "Where a default comparison's
// wall time goes"): 922 s of iterations, 528 gaps of 0.202 s and 24
// rounds of 25.2 s (two restored networks opened and closed together):
// 1,633 s. The estimate before it counted neither gaps nor closes and
// said 17 min of a run that took 34.
func TestEstimateOfTheDefaultComparisonOnCompose(t *testing.T) {
	s := scenario.Default()
	s.Nodes, _ = scenario.ParseNodeFlags([]string{"new=lnd@v0.21.0-beta", "old=lnd@v0.20.2-beta"})
	s.Baseline = "old"
	s.ApplyCompareDefaults()
	plans, err := plan(s)
	if err != nil {
		t.Fatal(err)
	}
	o := compose.Driver{}.Caps().Overhead
	d := planTime(s, o, plans, func(p networkPlan) time.Duration { return restoreTime(o, p) })
	measured := 922*time.Second + 528*202*time.Millisecond + 24*25200*time.Millisecond
	if len(plans) != 48 || d < measured*9/10 || d > measured*11/10 {
		t.Errorf("%d networks, %v; want 48 and %v ± 10%%", len(plans), d, measured)
	}
	if onSwarm := (swarm.Driver{}).Caps().Overhead; onSwarm != o {
		t.Errorf("swarm estimated as %+v, want compose's %+v", onSwarm, o)
	}
}
