//go:build e2e

package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInputTable runs the CLI as a user would, once per mistake: exit
// code 1, one line on stderr naming the field and the fix, and nothing
// created (no artifacts folder, no work folder, no process).
func TestBadInputTable(t *testing.T) {
	t.Parallel() // each mistake runs the CLI in its own TMPDIR and artifacts folder
	bin := buildCLI(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	topo := func(name, nodes, channels, payee string) string {
		return write(name+".yml", "name: t\nnodes: ["+nodes+"]\nchannels:\n"+channels+"payers: [alice]\npayee: "+payee+"\n")
	}
	scenarioOf := func(topoFile string) string {
		return write("sc-"+filepath.Base(topoFile), "topology: "+topoFile+"\n")
	}
	ab := "  - {from: alice, to: bob}\n"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"run", "--concurrency=3"}, "unknown flag: --concurrency"},
		{"unknown command", []string{"benchmark"}, `unknown command "benchmark"`},
		{"too many args", []string{"run", "a.yml", "b.yml"}, "accepts at most 1 arg(s)"},
		{"unknown param", []string{"run", "--param", "Speed=3"}, `param "Speed" is unknown; known params: Concurrency`},
		{"job setting as a param", []string{"run", "--param", "IterationCount=5"}, "is a job setting, not a param: use --job IterationCount=5"},
		{"unknown job setting", []string{"run", "--job", "Iterations=5"}, `"Iterations" is not a job setting; use one of LaunchCount`},
		{"zero iterations by --job", []string{"run", "--job", "IterationCount=0"}, "job.IterationCount=0: must be at least 1"},
		{"param without value", []string{"run", "--param", "Concurrency"}, `use Name=value[,value…]`},
		{"zero concurrency", []string{"run", "--param", "Concurrency=0"}, `param Concurrency="0": must be a positive integer`},
		{"float payments", []string{"run", "--param", "TotalPayments=1e3"}, "must be a positive integer"},
		{"negative amount", []string{"run", "--param", "AmountSat=-5"}, `param AmountSat="-5"`},
		{"zero rate", []string{"run", "--param", "Rate=0"}, `param Rate="0"`},
		{"unknown mode", []string{"run", "--param", "Mode=teleport"}, "use one of invoice, pregenerated, keysend"},
		{"param of another topology", []string{"run", "--param", "CarolsCount=2"}, "it shapes topology AlicePaysBobViaCarol"},
		{"graph of one node", []string{"run", "--param", "Graph=random", "--param", "NodeCount=1"}, `param NodeCount="1"`},
		{"unknown graph", []string{"run", "--param", "Graph=mesh"}, `param Graph="mesh": use one of chain`},
		{"bad capacity", []string{"run", "--param", "Graph=random", "--param", "Capacity=weird:1"}, "use fixed:SAT, uniform:MIN:MAX"},
		{"negative seed", []string{"run", "--param", "Graph=random", "--param", "Seed=-1"}, `param Seed="-1"`},
		{"oversized network", []string{"run", "--param", "Graph=random", "--param", "NodeCount=10000"}, "refusing to start 10000 nodes"},
		{"hours without --yes", []string{"run", "--param", "TotalPayments=1000000"}, "pass --yes to start it"},
		{"missing scenario", []string{"run", filepath.Join(dir, "nope.yml")}, "scenario file: open"},
		{"empty scenario", []string{"run", write("empty.yml", "")}, "the file is empty"},
		{"yaml syntax", []string{"run", write("syntax.yml", "topology: [AlicePaysBob\n")}, "yaml: line 1"},
		{"unknown key", []string{"run", write("unk.yml", "topology: AlicePaysBob\nfoo: 1\n")}, `unknown key "foo"; valid keys here: baseline`},
		{"bad value in file", []string{"run", write("ten.yml", "topology: AlicePaysBob\nparams:\n  Concurrency: [ten]\n")}, `Concurrency="ten"`},
		{"zero iterations", []string{"run", write("it0.yml", "topology: AlicePaysBob\njob: {IterationCount: 0}\n")}, "job.IterationCount=0: must be at least 1"},
		{"unknown topology", []string{"run", write("nosuch.yml", "topology: nosuch\n")}, `topology "nosuch": use AlicePaysBob`},
		{"topology file as scenario", []string{"run", topo("astopo", "{name: alice}, {name: bob}", ab, "bob")}, "is a topology file, not a scenario"},
		{"payee not a node", []string{"run", scenarioOf(topo("payee", "{name: alice}, {name: bob}", ab, "carol"))}, `payee "carol" is not a node`},
		{"duplicate node", []string{"run", scenarioOf(topo("dup", "{name: alice}, {name: alice}, {name: bob}", ab, "bob"))}, `"alice" appears twice`},
		{"channel to nowhere", []string{"run", scenarioOf(topo("chan", "{name: alice}, {name: bob}", "  - {from: alice, to: dave}\n", "bob"))}, `channels[0].to "dave" is not a node`},
		{"no route", []string{"run", scenarioOf(topo("noroute", "{name: alice}, {name: bob}, {name: carol}, {name: dave}", "  - {from: alice, to: carol}\n  - {from: dave, to: bob}\n", "bob"))}, `has no channel path to payee "bob"`},
		{"reserved name", []string{"run", scenarioOf(topo("reserved", "{name: alice}, {name: btcd}", "  - {from: alice, to: btcd}\n", "btcd"))}, `"btcd" is reserved`},
		{"bad backend", []string{"run", "--backend", "k8s"}, `--backend "k8s": use auto, compose, local or swarm`},
		{"zero start timeout", []string{"run", "--start-timeout", "0s"}, "--start-timeout 0s: use a positive duration"},
		{"cpus above cores", []string{"run", "--cpus", "4096"}, "use at most"},
		{"memory below minimum", []string{"run", "--memory", "1m"}, "below Docker's minimum of 6 MiB"},
		{"memory notation", []string{"run", "--memory", "512X"}, `node.memory "512X": use bytes with an optional unit`},
		{"memory below LND's start peak", []string{"run", "--memory", "128m"}, "node.memory (--memory) 128m: LND needs 320 MiB to start"},
		{"limits on local", []string{"run", "--backend", "local", "--cpus", "1"}, "limit containers: use --backend compose"},
		{"duet cpus value", []string{"run", "--node", "a=lnd@v0.21.0-beta", "--node", "b=lnd@v0.21.0-beta", "--baseline", "a", "--duet-cpus", "half"}, `compare.cpus "half": use shared or split`},
		{"split cpus interleaved", []string{"run", "--node", "a=lnd@v0.21.0-beta", "--node", "b=lnd@v0.21.0-beta", "--baseline", "a", "--design", "interleaved", "--duet-cpus", "split"}, "compare.cpus split: CPU sets split a duet round's networks"},
		{"calibrate against as baseline", []string{"calibrate", "--against", "a=lnd@v0.20.2-beta"}, "the label a is the baseline's"},
		{"malformed node spec", []string{"run", "--node", "lnd@"}, `node spec "lnd@": use IMPL@VERSION`},
		{"unknown release", []string{"run", "--node", "lnd@v0.0.1-beta"}, "no build module for lnd v0.0.1-beta"},
		{"unknown baseline", []string{"run", "--node", "lnd@v0.21.0-beta", "--baseline", "nosuch"}, `baseline "nosuch": name one of the node specs' labels`},
		{"down unknown run", []string{"down", "20200101T000000Z-nosuch"}, `no run "20200101T000000Z-nosuch" on this machine; known runs:`},
		{"down without id", []string{"down"}, "give a run id or --all"},
		{"report of nothing", []string{"report", filepath.Join(dir, "nothing")}, "has neither run.json nor summary.json nor a readable scenario.yml"},
		{"comments only", []string{"run", write("comments.yml", "# nothing yet\n")}, "the file is empty; write at least \"topology: AlicePaysBob\""},
		{"negative warm-up", []string{"run", write("wu.yml", "topology: AlicePaysBob\njob: {WarmupCount: -1}\n")}, "job.WarmupCount=-1: must be at least 0"},
		{"param without values", []string{"run", write("nov.yml", "topology: AlicePaysBob\nparams: {Concurrency: []}\n")}, "param Concurrency has no values"},
		{"cpus above cores in file", []string{"run", write("cpus.yml", "topology: AlicePaysBob\nnode: {cpus: 4096}\n")}, "node.cpus 4096: this machine has"},
		{"negative cpus", []string{"run", "--cpus", "-1"}, "node.cpus -1: use a positive number of CPUs"},
		{"cpus below minimum", []string{"run", "--cpus", "0.001"}, "below Docker's minimum of 0.01"},
		{"zero memory", []string{"run", "--memory", "0"}, `node.memory "0": use bytes with an optional unit`},
		{"memory on local", []string{"run", "--backend", "local", "--memory", "512M"}, "limit containers: use --backend compose"},
		{"negative start timeout", []string{"run", "--start-timeout", "-5s"}, "--start-timeout -5s: use a positive duration"},
		{"empty param value", []string{"run", "--param", "Concurrency="}, `--param "Concurrency=": use Name=value`},
		{"up unknown topology", []string{"up", "nosuch"}, `"nosuch": give a scenario or topology .yml file, or AlicePaysBob`},
		{"path from the current directory in a file", []string{"run", write("relpath.yml", "topology: topology/testdata/describegraph12.json\n")}, "paths in a scenario file are relative to its folder"},
		{"sample above the graph file", []string{"run", "--param", "Graph=topology/testdata/describegraph12.json", "--param", "NodeCount=13"}, "has only 12 nodes with channels; use at most 12, or leave NodeCount out"},
		{"compare one folder", []string{"compare", dir}, "accepts 2 arg(s), received 1"},
		{"compare of nothing", []string{"compare", filepath.Join(dir, "a"), filepath.Join(dir, "b")}, "has neither run.json nor summary.json nor a readable scenario.yml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp, arts := t.TempDir(), filepath.Join(t.TempDir(), "arts")
			args := tt.args
			if args[0] == "run" {
				args = append(args, "--artifacts", arts)
			}
			cmd := exec.Command(bin, args...)
			cmd.Dir = repoRoot(t)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CI=1")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != 1 {
				t.Fatalf("exit %d (%v), want 1; stderr:\n%s", code, err, stderr.String())
			}
			msg := strings.TrimSpace(stderr.String())
			if strings.Count(msg, "\n") > 0 || !strings.HasPrefix(msg, "lnbench: ") {
				t.Errorf("want one line starting 'lnbench: ', got:\n%s", msg)
			}
			if !strings.Contains(msg, tt.want) {
				t.Errorf("stderr %q, want it to contain %q", msg, tt.want)
			}
			if _, err := os.Stat(arts); !os.IsNotExist(err) {
				t.Errorf("the artifacts folder was created (%v)", err)
			}
			if entries, _ := os.ReadDir(filepath.Join(tmp, "lnbench")); len(entries) > 0 {
				t.Errorf("a work folder was created: %v", entries)
			}
			if ps := processesMentioning(tmp); len(ps) > 0 {
				t.Errorf("left running: %v", ps)
			}
		})
	}
	if len(tests) < 30 {
		t.Fatalf("%d bad inputs; the table keeps at least 30", len(tests))
	}
}
