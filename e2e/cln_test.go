//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/cli"
	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/record/result"
)

// clnTarball is CI's Core Lightning tree (test data beside the repository,
// or $LNBENCH_CLN_SRC in a worktree without it).
func clnTarball(t *testing.T) string {
	t.Helper()
	return testsupport.CLNSource(t, repoRoot(t))
}

// clnSpec is the node spec of CI's CLN tree, whose default build must be
// in the cache already (test.sh builds it): a test never builds CLN.
func clnSpec(t *testing.T) string {
	t.Helper()
	tarball := clnTarball(t)
	spec, err := nodebuild.Parse("", "cln@src:"+tarball)
	if err != nil {
		t.Fatal(err)
	}
	_, err = nodebuild.Peek(nodebuild.DefaultCacheDir(), spec)
	testsupport.RequireOrSkip(t, err == nil, fmt.Sprintf("needs the CLN build: %v (./test.sh builds it)", err))
	return "cln@src:" + tarball
}

// TestCLNAlicePaysBobThroughTheCLI runs AlicePaysBob on two CLN nodes from
// the command line (local backend): every payment succeeds, the report
// names CLN, its version and the regtest chain's harness flags.
func TestCLNAlicePaysBobThroughTheCLI(t *testing.T) {
	t.Parallel()
	spec := clnSpec(t)
	dir := runCLI(t, "run", "--node", "cln="+spec, "--param", "Concurrency=4", "--param", "TotalPayments=20", "--quick")
	rep := readSummary(t, dir)
	if len(rep.Nodes) != 1 || rep.Nodes[0].Implementation != "cln" || rep.Nodes[0].NodeVersion != "v26.06.6" {
		t.Fatalf("node info: %+v", rep.Nodes)
	}
	if !strings.Contains(strings.Join(rep.Nodes[0].Flags, " "), "--network=regtest") || rep.Nodes[0].Profile != "tuned+sqlite3" {
		t.Errorf("flags %v profile %q", rep.Nodes[0].Flags, rep.Nodes[0].Profile)
	}
	recs := readRecords(t, dir)
	measured := 0
	for _, r := range recs {
		if r.Phase != result.Measure {
			continue
		}
		measured++
		if r.Status != result.Succeeded {
			t.Errorf("payment %d: %s %s", r.Seq, r.Status, r.FailureReason)
		}
	}
	if measured == 0 {
		t.Fatal("no measured payments")
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !bytes.Contains(md, []byte("v26.06.6")) || !bytes.Contains(md, []byte("./configure --disable-rust")) {
		t.Errorf("summary.md does not name CLN's version and build:\n%s", md)
	}
}

// TestCLNCarolForwardsBetweenLNDNodes puts a CLN carol between an LND
// alice and bob (payments cross implementations at both hops): carol's
// forward count, read by the CLN driver from listforwards, is the
// successful payments' count plus the warm-up.
func TestCLNCarolForwardsBetweenLNDNodes(t *testing.T) {
	t.Parallel()
	scen := carolRunFiles(t, "LNDViaCLNCarol", "", fmt.Sprintf(", node: %q", clnSpec(t)),
		"name: LNDViaCLNCarol\ntopology: topology.yml\nparams:\n  Concurrency: [4]\n  TotalPayments: [20]\n")
	run := runCLI(t, "run", scen, "--quick")
	rep := readSummary(t, run)
	succeeded := 0
	for _, r := range readRecords(t, run) {
		if r.Status == result.Succeeded {
			succeeded++
		}
	}
	var carol int
	for _, f := range rep.Forwards {
		if f.Node == "carol" {
			carol += f.Count
		}
	}
	// +1: the network's warm-up payment (network.WarmUp), one per pair.
	if succeeded == 0 || carol != succeeded+1 {
		t.Errorf("carol (CLN) forwarded %d, want %d payments + 1 warm-up; forwards %+v", carol, succeeded, rep.Forwards)
	}
}

// carolRunFiles writes alice → carol → bob (topology.yml, each node's
// spec mapping suffix given: ends for alice and bob, middle for carol)
// and the scenario beside it, and returns the scenario's path.
func carolRunFiles(t *testing.T, name, ends, middle, scenario string) string {
	t.Helper()
	dir := t.TempDir()
	topo := fmt.Sprintf(`name: %s
nodes:
  - {name: alice%s}
  - {name: carol%s}
  - {name: bob%s}
channels:
  - {from: alice, to: carol}
  - {from: carol, to: bob}
payers: [alice]
payee: bob
`, name, ends, middle, ends)
	for file, body := range map[string]string{"topology.yml": topo, "scenario.yml": scenario} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "scenario.yml")
}

// TestCLNBadTreeRefusedBeforeAnythingStarts: a path that is not a CLN tree
// is one line naming the spec and the fix, and no run folder is made.
func TestCLNBadTreeRefusedBeforeAnythingStarts(t *testing.T) {
	t.Parallel()
	arts := artifactsDir(t)
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := cli.Run(ctx, &out, &errb, []string{"run", "--node", "cln@src:" + t.TempDir(), "--backend", "local",
		"--artifacts", arts, "--images", filepath.Join(repoRoot(t), "images"), "--quick"})
	if err == nil || !strings.Contains(err.Error(), "not a Core Lightning source tree") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err %v", err)
	}
	if entries, _ := os.ReadDir(arts); len(entries) != 0 {
		t.Errorf("a refused run left %d entries in the artifacts folder", len(entries))
	}
}

func readRecords(t *testing.T, dir string) []result.Record {
	t.Helper()
	recs, err := result.ReadFile(filepath.Join(dir, "payments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestCLNRestartBob restarts a CLN bob 3 s into an open-loop run (local
// backend): the restart is recorded with when bob answered and when his
// channel was normal again, payments succeed after it, and bob's own log
// (lightningd.log, which lnbench only copies) shows two startups.
func TestCLNRestartBob(t *testing.T) {
	t.Parallel()
	spec := clnSpec(t)
	dir := t.TempDir()
	scen := "name: CLNRestartBob\ntopology: AlicePaysBob\nparams:\n  Rate: [10]\n  TotalPayments: [150]\n" +
		"job: {LaunchCount: 1, WarmupCount: 0, IterationCount: 1, InvocationCount: 1}\nfaults:\n  - restart bob at 3s\n"
	file := filepath.Join(dir, "scenario.yml")
	if err := os.WriteFile(file, []byte(scen), 0o644); err != nil {
		t.Fatal(err)
	}
	run := runCLI(t, "run", file, "--node", "cln="+spec)
	recs := faultRecords(t, run)
	if len(recs) != 1 || recs[0].Error != "" || recs[0].ChannelsActive.Before(recs[0].End) || !recs[0].End.After(recs[0].Start) {
		t.Fatalf("restart record: %+v", recs)
	}
	r := recs[0]
	t.Logf("CLN bob restart: answering after %v, channel normal after %v", r.End.Sub(r.Start), r.ChannelsActive.Sub(r.Start))
	pays := readRecords(t, run)
	after := 0
	for _, p := range pays {
		if p.Status == "" {
			t.Errorf("payment without outcome: %+v", p)
		}
		if p.Start.After(r.ChannelsActive) && p.Status == result.Succeeded {
			after++
		}
	}
	if after == 0 {
		t.Error("no payment succeeded after bob's channel was normal again")
	}
	logs, _ := filepath.Glob(filepath.Join(run, "*", "bob", "lightningd.log"))
	if len(logs) == 0 {
		logs, _ = filepath.Glob(filepath.Join(run, "*", "*", "bob", "lightningd.log"))
	}
	if len(logs) != 1 {
		t.Fatalf("bob's lightningd.log in the artifacts: %v", logs)
	}
	data, _ := os.ReadFile(logs[0])
	if n := bytes.Count(data, []byte("Server started with public key")); n != 2 {
		t.Errorf("bob's own log shows %d startups, want 2", n)
	}
}
