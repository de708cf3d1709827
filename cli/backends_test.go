package cli

import (
	"strings"
	"testing"

	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/scenario"
)

// What a backend can do decides what is refused, not its name.
func TestBackendCapabilitiesRefuse(t *testing.T) {
	local, swarm := lookupBackend("local"), lookupBackend("swarm")
	delay := scenario.Default()
	f, err := faults.Parse("delay bob 50ms at 1s for 5s")
	if err != nil {
		t.Fatal(err)
	}
	delay.Faults = []faults.Spec{f}
	if err := refuseFaults(delay, local); err == nil || !strings.Contains(err.Error(), "compose") {
		t.Errorf("a delay on local: %v", err)
	}
	if err := refuseFaults(delay, swarm); err == nil || !strings.Contains(err.Error(), "the swarm backend injects no faults") {
		t.Errorf("a fault on swarm: %v", err)
	}
	split := scenario.Default()
	split.Compare.CPUs = scenario.CPUsSplit
	if err := refuseCPUSets(split, swarm.Caps()); err == nil || !strings.Contains(err.Error(), "places networks on engines") {
		t.Errorf("split CPUs on swarm: %v", err)
	}
	if err := refuseCPUSets(split, local.Caps()); err != nil {
		t.Errorf("split CPUs on local: %v", err)
	}
	cln := scenario.Default()
	cln.Nodes, _ = scenario.ParseNodeFlags([]string{"cln@src:/tmp/lightning"})
	if err := refuseCLNBackend(cln, swarm); err == nil || !strings.Contains(err.Error(), "do not run on the swarm backend") {
		t.Errorf("CLN on swarm: %v", err)
	}
	if err := refuseCLNBackend(cln, local); err != nil {
		t.Errorf("CLN on local: %v", err)
	}
	if err := refuseSnapshots(true, swarm); err == nil || !strings.Contains(err.Error(), "--snapshots: the swarm backend") || !strings.Contains(err.Error(), "use --backend compose or local") {
		t.Errorf("snapshots on swarm: %v", err)
	}
	if err := refuseSnapshots(true, local); err != nil {
		t.Errorf("snapshots on local: %v", err)
	}
	pg := scenario.Default()
	pg.Nodes, _ = scenario.ParseNodeFlags([]string{"lnd@v0.21.0-beta+db=postgres"})
	if _, err := refuseDatabases(pg, swarm); err == nil || !strings.Contains(err.Error(), "db=postgres nodes do not run on the swarm backend yet; use --backend compose or local") {
		t.Errorf("postgres on swarm: %v", err)
	}
	if with, err := refuseDatabases(pg, local); err != nil || !with {
		t.Errorf("postgres on local: %v %v", with, err)
	}
	if with, err := refuseDatabases(scenario.Default(), local); err != nil || with {
		t.Errorf("the default scenario on local: %v %v", with, err)
	}
	whole := scenario.Default()
	whole.Node.DBBackend = "postgres"
	if _, err := refuseDatabases(whole, swarm); err == nil {
		t.Error("the scenario's db_backend postgres on swarm was not refused")
	}
	if got := backendNames(); got != "compose, local or swarm" {
		t.Errorf("names %q", got)
	}
	if _, _, err := chooseBackend("k8s"); err == nil || !strings.Contains(err.Error(), `--backend "k8s": use auto, compose, local or swarm`) {
		t.Errorf("unknown backend: %v", err)
	}
}

func TestSnapshotsForNamesASpec(t *testing.T) {
	s := scenario.Default()
	s.Nodes, _ = scenario.ParseNodeFlags([]string{"a=lnd@v0.21.0-beta", "b=lnd@v0.21.0-beta"})
	if err := checkSnapshotsFor(s, []string{"b"}); err != nil {
		t.Errorf("b: %v", err)
	}
	if err := checkSnapshotsFor(s, []string{"c"}); err == nil || err.Error() != `--snapshots-for "c": name one of the node specs' labels (a, b)` {
		t.Errorf("c: %v", err)
	}
}
