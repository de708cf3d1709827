package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Bad input is refused in one line naming the field and the fix, before
// anything exists: no artifacts folder, no build, no container.
func TestBadInputRefusedBeforeAnythingStarts(t *testing.T) {
	dir := t.TempDir()
	file := func(name, doc string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := file("empty.yml", "# nothing yet\n")
	topo := file("topo.yml", "nodes: [{name: a}, {name: b}]\nchannels: [{from: a, to: b}]\npayers: [a]\npayee: b\n")
	unknownKey := file("typo.yml", "name: X\ntopology: AlicePaysBob\njob:\n  Iterations: 3\n")
	carols := file("carols.yml", "name: C\ntopology: AlicePaysBobViaCarol\nparams:\n  CarolsCount: [1, 2]\n")
	badNode := file("badnode.yml", "name: B\ntopology: "+file("badtopo.yml", "nodes: [{name: a}, {name: sampler}]\n")+"\n")
	pinned := file("pinned.yml", "name: P\ntopology: "+file("pinnedtopo.yml", "nodes: [{name: a}, {name: b, node: carol2}]\nchannels: [{from: a, to: b}]\npayers: [a]\npayee: b\n")+"\n")
	limited := file("limited.yml", "name: L\ntopology: "+file("limitedtopo.yml", "nodes: [{name: a}, {name: b, cpus: 0.5}]\nchannels: [{from: a, to: b}]\npayers: [a]\npayee: b\n")+"\n")
	badLimits := file("badlimits.yml", "name: BL\ntopology: "+file("badlimitstopo.yml", "nodes: [{name: a}, {name: b, cpus: -1}]\nchannels: [{from: a, to: b}]\npayers: [a]\npayee: b\n")+"\n")
	deadEngine := file("engines", "lnbe-9 198.18.0.99 unix://"+filepath.Join(dir, "none.sock")+"\n")
	badEngines := file("engines-bad", "lnbe-1 not-an-ip unix:///x.sock\n")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", limited, "--backend", "local"}, "nodes' cpus/memory limit containers: use --backend compose"},
		{[]string{"run", badLimits}, "nodes[1].cpus -1: use a positive number of CPUs"},
		{[]string{"run", "--param", "Storage=ssd"}, "param Storage=\"ssd\": use one of disk, tmpfs"},
		{[]string{"run", "--backend", "swarm", "--swarm-engines", filepath.Join(dir, "absent-engines")}, "absent-engines does not exist: list one engine per line"},
		{[]string{"run", "--backend", "swarm", "--swarm-engines", badEngines}, `address "not-an-ip" is not an IP address`},
		{[]string{"run", "--backend", "swarm", "--swarm-engines", deadEngine}, "swarm engine lnbe-9 (unix://" + filepath.Join(dir, "none.sock") + ") does not answer"},
		{[]string{"run", "--memory", "5m"}, `node.memory "5m" is below Docker's minimum of 6 MiB; use at least 6m`},
		{[]string{"run", "--memory", "512x"}, `node.memory "512x": use bytes with an optional unit`},
		{[]string{"run", "--cpus", "100000"}, "node.cpus 100000: this machine has"},
		{[]string{"run", "--cpus", "-1"}, "node.cpus -1: use a positive number of CPUs"},
		{[]string{"run", "--start-timeout", "0s"}, "--start-timeout 0s: use a positive duration"},
		{[]string{"run", "--start-timeout", "-5s"}, "--start-timeout -5s: use a positive duration"},
		{[]string{"run", "--build", "--backend", "compse"}, `--backend "compse": use auto, compose, local or swarm`},
		{[]string{"run", empty}, `the file is empty; write at least "topology: AlicePaysBob"`},
		{[]string{"run", topo}, "is a topology file, not a scenario: name it in a scenario file (topology: topo.yml), or bring it up with lnbench up"},
		{[]string{"run", unknownKey}, `unknown key "Iterations"; valid keys here: Duration, InvocationCount, IterationCount, LaunchCount, WarmupCount`},
		{[]string{"run", carols, "--param", "CarolsCount=60"}, "CarolsCount=60: use 0..50"},
		{[]string{"run", badNode}, `nodes[1].name "sampler" is reserved for the harness`},
		{[]string{"run", "--param", "Mode=fast"}, "use one of invoice, pregenerated, keysend"},
		{[]string{"run", "--param", "CarolsCount=2"}, "topology AlicePaysBob does not use it; it shapes topology AlicePaysBobViaCarol"},
		{[]string{"run", "--param", "Concurency=2"}, `param "Concurency" is unknown; known params: Concurrency`},
		{[]string{"run", "--param", "IterationCount=5"}, `param "IterationCount" is a job setting, not a param: use --job IterationCount=5`},
		{[]string{"run", "--job", "Iterations=5"}, `--job Iterations=5: "Iterations" is not a job setting; use one of LaunchCount, WarmupCount, IterationCount`},
		{[]string{"run", "--job", "Concurrency=5"}, "--job Concurrency=5: Concurrency is a param, not a job setting; use --param Concurrency=5"},
		{[]string{"run", "--job", "IterationCount=five"}, "--job IterationCount=five: use a whole number"},
		{[]string{"run", "--job", "IterationCount=0"}, "job.IterationCount=0: must be at least 1"},
		{[]string{"run", "--job", "IterationCount"}, `--job "IterationCount": use Name=value`},
		{[]string{"run", "--job", "Duration=soon"}, "--job Duration=soon: use a duration such as 10m"},
		{[]string{"run", filepath.Join(dir, "absent.yml")}, "scenario file:"},
		{[]string{"soak", "--duration", "5s"}, "--duration 5s: use at least 10s"},
		{[]string{"soak", "--start-timeout", "0s"}, "--start-timeout 0s"},
		{[]string{"soak", "--every", "10s", "--window", "60s"}, "sampling.every 10s is shorter than sampling.window"},
		{[]string{"up", "--start-timeout", "0s"}, "--start-timeout 0s"},
		{[]string{"up", carols}, "lnbench up brings one network up; the params give 2 cases"},
		{[]string{"run", "--node", "lnd"}, "--node: node spec \"lnd\": use IMPL@VERSION"},
		{[]string{"run", "--node", "lnd@v0.21.0-beta+profile=fast"}, `profile "fast": use one of default, tuned, bottlepay`},
		{[]string{"run", "--node", "lnd@v0.21.0-beta", "--node", "lnd@v0.20.2-beta", "--baseline", "v0.19"}, `baseline "v0.19": name one of the node specs' labels (v0.21.0-beta, v0.20.2-beta)`},
		{[]string{"run", "--node", "lnd@v0.21.0-beta", "--node", "lnd@v0.21.0-beta"}, `label "v0.21.0-beta" names two specs; give one a name`},
		{[]string{"run", pinned}, `node "carol2" is neither a spec label of the scenario`},
		{[]string{"run", "--fault", "restart carol at 1s"}, `no actor "carol"; name one of alice, bob, btcd, or a role (payer, payee, intermediary)`},
		{[]string{"run", "--fault", "pause bob at 1s"}, `--fault: fault "pause bob at 1s": pause needs how long it lasts: add "for <duration>"`},
		{[]string{"run", "--fault", "kill bob at iteration 10"}, "measured iterations are numbered 0 to 9"},
		{[]string{"run", "--backend", "local", "--fault", "delay bob 50ms at 1s for 5s"}, `fault "delay bob 50ms at 1s for 5s" needs a backend whose nodes have their own network interface (impairments act on it); use --backend compose`},
	}
	for _, tt := range tests {
		artifacts := filepath.Join(dir, "artifacts")
		args := append(append([]string(nil), tt.args...), "--artifacts", artifacts, "--images", filepath.Join(dir, "no-images"))
		stderr, ok := refusedInOneLine(t, args, tt.want)
		if !ok {
			continue
		}
		if strings.Contains(stderr, "estimated") {
			t.Errorf("%v: the plan line was printed before the refusal", tt.args)
		}
		if _, statErr := os.Stat(artifacts); statErr == nil {
			t.Errorf("%v: an artifacts folder was created", tt.args)
			os.RemoveAll(artifacts)
		}
	}
}

// refusedInOneLine runs a command line that must fail with a one-line error
// containing want; it reports whether it failed as wanted, and returns what
// went to stderr.
func refusedInOneLine(t *testing.T, args []string, want string) (string, bool) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), &stdout, &stderr, args)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%v: err %v, want containing %q", args, err, want)
		return stderr.String(), false
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("%v: error is not one line: %q", args, err)
	}
	return stderr.String(), true
}

// --job sets job settings over the file's and --quick's.
func TestJobFlagOverridesTheJob(t *testing.T) {
	s, err := loadScenario(nil, runFlags{quick: true, jobs: []string{"IterationCount=5", "WarmupCount=0"}, startTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if s.Job.IterationCount != 5 || s.Job.WarmupCount != 0 || s.Job.LaunchCount != 1 {
		t.Errorf("job %+v", s.Job)
	}
}

// Docker's memory notation passes the one rule, whatever its case.
func TestLoadScenarioAcceptsDockerLimits(t *testing.T) {
	for _, m := range []string{"512m", "512M", "1g", "1.5GiB"} {
		s, err := loadScenario(nil, runFlags{memory: m, cpus: 1, startTimeout: 90 * time.Second})
		if err != nil || s.Node.Memory != m {
			t.Errorf("--memory %s: %v (memory %q)", m, err, s.Node.Memory)
		}
	}
}
