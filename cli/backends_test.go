package cli

import (
	"os"
	"strings"
	"testing"
	"time"

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

// Restoring is the default where the backend can; a flag, the scenario's
// key or the environment builds; asking for both is refused in one line.
func TestRestoresNetworks(t *testing.T) {
	local, swarm := lookupBackend("local"), lookupBackend("swarm")
	fresh := scenario.Default()
	fresh.FreshNetwork = true
	cases := []struct {
		name    string
		s       scenario.Scenario
		f       runFlags
		env     string
		backend string
		restore bool
		note    string // a part of the note, "" for none
		err     string // a part of the error, "" for none
	}{
		{name: "default on local", s: scenario.Default(), backend: "local", restore: true},
		{name: "default on swarm builds, saying why", s: scenario.Default(), backend: "swarm", note: "the swarm backend keeps its actors' data"},
		{name: "--fresh-network", s: scenario.Default(), f: runFlags{fresh: true, freshSet: true}, backend: "local"},
		{name: "fresh_network in the scenario", s: fresh, backend: "local"},
		{name: "the environment", s: scenario.Default(), env: "1", backend: "local"},
		{name: "--snapshots over the environment", s: scenario.Default(), f: runFlags{snapshots: true}, env: "true", backend: "local", restore: true},
		{name: "--fresh-network=false over the environment", s: scenario.Default(), f: runFlags{freshSet: true}, env: "1", backend: "local", restore: true},
		{name: "--snapshots-for", s: scenario.Default(), f: runFlags{snapshotsFor: []string{"a"}}, backend: "local", restore: true},
		{name: "--snapshots on swarm", s: scenario.Default(), f: runFlags{snapshots: true}, backend: "swarm", err: "--snapshots: the swarm backend"},
		{name: "both flags", s: scenario.Default(), f: runFlags{snapshots: true, fresh: true, freshSet: true}, backend: "local", err: "--fresh-network and --snapshots: keep one"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(FreshNetworkEnv, c.env)
			be := local
			if c.backend == "swarm" {
				be = swarm
			}
			restore, note, err := restoresNetworks(c.s, c.f, be)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err %v, want one line with %q", err, c.err)
				}
				return
			}
			if err != nil || restore != c.restore {
				t.Fatalf("restore %v, %v; want %v", restore, err, c.restore)
			}
			if (c.note == "") != (note == "") || !strings.Contains(note, c.note) {
				t.Errorf("note %q, want %q", note, c.note)
			}
		})
	}
}

// --snapshots overrides the scenario's fresh_network, as flags override the file.
func TestSnapshotsFlagOverridesTheScenario(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/s.yml"
	if err := os.WriteFile(file, []byte("topology: AlicePaysBob\nfresh_network: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f    runFlags
		want bool
	}{{runFlags{}, true}, {runFlags{snapshots: true}, false}, {runFlags{freshSet: true}, false}} {
		c.f.startTimeout = time.Minute
		s, err := loadScenario([]string{file}, c.f)
		if err != nil {
			t.Fatal(err)
		}
		if s.FreshNetwork != c.want {
			t.Errorf("flags %+v: fresh_network %v, want %v", c.f, s.FreshNetwork, c.want)
		}
	}
}
