//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/bisect"
	"github.com/lnbench/lnbench/cli"
	"github.com/lnbench/lnbench/internal/lines"
	"github.com/lnbench/lnbench/internal/testsupport"
)

// bisectSleep is the regression planted on the payment path: a sleep at
// the top of routerrpc's SendPaymentV2 (alice runs it for every payment;
// the invoice path, bob's AddInvoice, is untouched). At Concurrency=5 the
// closed loop is latency-bound, so each payment's latency grows by it:
// far above twice the duet's MDE (3–6%, docs/measured.md).
// lndBisectCase is the case LND's bisects measure.
var lndBisectCase = []string{"Concurrency=5", "TotalPayments=60"}

const bisectSleep = "time.Sleep(30 * time.Millisecond) // lnbench bisect e2e: the regression"

// lndHistory makes a git clone of LND's release source with six commits
// after the release, each a harmless comment; with regressAt > 0, that
// commit (1-based) adds bisectSleep instead. It returns the clone and the
// commit ids, the release first.
func lndHistory(t *testing.T, regressAt int) (string, []string) {
	t.Helper()
	tree := keptClone(t, lndSourceCopy(t))
	g := func(args ...string) string { return testsupport.Git(t, tree, args...) }
	g("init", "-q", "-b", "master")
	g("add", "-A")
	g("commit", "-q", "-m", "lnd "+lndRelease)
	ids := []string{g("rev-parse", "HEAD")}
	for i := 1; i <= 6; i++ {
		if i == regressAt {
			patchSendPayment(t, tree, bisectSleep)
			g("commit", "-q", "-am", "routerrpc: wait before each payment")
		} else {
			appendComment(t, filepath.Join(tree, "lnd.go"), fmt.Sprintf("// harmless change %d\n", i))
			g("commit", "-q", "-am", fmt.Sprintf("lnd: harmless change %d", i))
		}
		ids = append(ids, g("rev-parse", "HEAD"))
	}
	return tree, ids
}

// keptClone moves the clone under LNBENCH_BISECT_OUT when it is set, so
// that lnbench history can order the kept runs by its commits later.
func keptClone(t *testing.T, tree string) string {
	t.Helper()
	keep := os.Getenv("LNBENCH_BISECT_OUT")
	if keep == "" {
		return tree
	}
	dst := filepath.Join(keep, t.Name()+"-"+time.Now().UTC().Format("20060102T150405")+"-clone")
	if err := os.MkdirAll(keep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tree, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

func appendComment(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// patchSendPayment inserts a statement at the top of routerrpc's
// SendPaymentV2: the payer's side of every measured payment.
func patchSendPayment(t *testing.T, tree, stmt string) {
	t.Helper()
	insertAfter(t, filepath.Join(tree, "lnrpc", "routerrpc", "router_server.go"), "stream Router_SendPaymentV2Server) error {\n", "\t"+stmt+"\n")
}

// bisectReport runs lnbench bisect of spec (a clone) over HEAD~back..HEAD
// with the params given and reads its bisect.json.
func bisectReport(t *testing.T, spec string, back int, params ...string) (bisect.Report, string) {
	t.Helper()
	arts := artifactsDir(t)
	out := filepath.Join(arts, "bisect")
	if keep := os.Getenv("LNBENCH_BISECT_OUT"); keep != "" {
		out = filepath.Join(keep, t.Name()+"-"+time.Now().UTC().Format("20060102T150405")) // kept for the closing note's figures
	}
	args := []string{"bisect", "--node", spec, "--good", fmt.Sprintf("HEAD~%d", back), "--bad", "HEAD"}
	for _, p := range params {
		args = append(args, "--param", p)
	}
	args = append(args, "--job", "WarmupCount=1", "--job", "IterationCount=4",
		"--out", out, "--backend", "local", "--artifacts", arts, "--images", filepath.Join(repoRoot(t), "images"))
	// As a user's bisect runs (snapshots are the default), from a cache of
	// its own: each revision's network is built once and restored for its
	// other launches. LNBENCH_BISECT_FRESH=1 builds every network, for the
	// wall time without snapshots (docs/measured.md, Bisect on real nodes).
	if os.Getenv("LNBENCH_BISECT_FRESH") == "" {
		args = append(args, "--snapshots", "--snapshot-dir", t.TempDir()) // beside the artifacts: a snapshot holds wallets
	}
	var stdout, stderr bytes.Buffer
	start := time.Now()
	err := cli.Run(context.Background(), &stdout, &stderr, args)
	t.Logf("lnbench bisect took %v\n%s", time.Since(start).Round(time.Second), stdout.String())
	if err != nil {
		t.Fatalf("lnbench %v: %v\n%s", args, err, lines.Last(stderr.String(), 40))
	}
	var rep bisect.Report
	if err := json.Unmarshal([]byte(readFile(t, out, bisect.JSONFile)), &rep); err != nil {
		t.Fatal(err)
	}
	for _, row := range bisect.Evidence(rep.Result) {
		t.Logf("%d %s %s: to good %.3f (%.3f–%.3f) %s", row.Position, row.Commit.Short, row.Commit.Subject, row.ToGood, row.ToGoodLow, row.ToGoodHigh, row.Class)
	}
	t.Logf("builds %d, runs %d, elapsed %s (%s)", rep.Builds, rep.Runs, rep.Elapsed, out)
	return rep, out
}

// TestSlowBisectFindsThePaymentPathSleep plants a sleep on LND's payment
// path in the fourth of six commits after the release; bisect must name
// that commit with at most five measured revisions, the evidence showing
// the ratio step there.
func TestSlowBisectFindsThePaymentPathSleep(t *testing.T) {
	testsupport.SlowTier(t)
	binaries(t)
	clone, ids := lndHistory(t, 4)
	rep, out := bisectReport(t, "lnd@src:"+clone, 6, lndBisectCase...)
	if len(rep.Culprits) != 1 || rep.Culprits[0].Commit.ID != ids[4] {
		t.Fatalf("culprits %+v, want the fourth commit %s (%s)", rep.Culprits, ids[4][:12], filepath.Join(out, bisect.MarkdownFile))
	}
	if measured := 2 + len(rep.Steps); measured > 5 {
		t.Errorf("%d revisions measured, want at most 5", measured)
	}
	for _, row := range bisect.Evidence(rep.Result) {
		if row.Class == bisect.Skipped || row.Position == 0 {
			continue
		}
		if row.Position < 4 && row.ToGood > 1.05 || row.Position >= 4 && row.ToGood < 1.1 {
			t.Errorf("revision %d (%s): ratio to good %.3f does not show the step at 4", row.Position, row.Commit.Short, row.ToGood)
		}
	}
	if _, err := os.Stat(filepath.Join(out, bisect.MarkdownFile)); err != nil {
		t.Error(err)
	}
}

// TestSlowBisectNullRange is the same history with six harmless commits:
// bisect must say there is no difference and name no commit.
func TestSlowBisectNullRange(t *testing.T) {
	testsupport.SlowTier(t)
	binaries(t)
	clone, _ := lndHistory(t, 0)
	rep, out := bisectReport(t, "lnd@src:"+clone, 6, lndBisectCase...)
	if len(rep.Culprits) != 0 || rep.Ends.Difference {
		t.Fatalf("a range of harmless commits named %+v (%s)", rep.Culprits, out)
	}
	if !strings.Contains(rep.Ends.Note, "no difference larger than") {
		t.Errorf("note %q", rep.Ends.Note)
	}
	t.Log(rep.Ends.Note)
}

// clnSleep is the CLN regression: a sleep in lightningd's
// injectpaymentonion (before it checks earlier attempts), which every
// payment part of the payer passes. In v26.06 xpay takes over `pay` by
// default and sends with injectpaymentonion, so a sleep in
// send_payment_core (sendpay and sendonion, the old pay plugin's path) is
// never reached: strace of alice's lightningd counted no clock_nanosleep
// in that build, 85 in 8 s in this one. The invoice path is untouched.
// lightningd is one event loop, so the sleep serialises.
const clnSleep = "\tusleep(20000); /* lnbench bisect e2e: the regression */\n"

// clnHistory makes a git clone of CI's CLN tree with three commits after
// the release, the second adding clnSleep. Ignored files the tarball ships
// (pre-generated sources) are committed too (-f), as a release tree builds
// with them.
func clnHistory(t *testing.T) (string, []string) {
	t.Helper()
	tarball := clnTarball(t)
	tree := filepath.Join(t.TempDir(), "lightning")
	if err := os.MkdirAll(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("tar", "-xf", tarball, "-C", tree, "--strip-components=1").CombinedOutput(); err != nil {
		t.Fatalf("tar: %v %s", err, out)
	}
	g := func(args ...string) string { return testsupport.Git(t, tree, args...) }
	g("init", "-q", "-b", "master")
	g("add", "-A", "-f")
	g("commit", "-q", "-m", "lightning release")
	ids := []string{g("rev-parse", "HEAD")}
	pay := filepath.Join(tree, "lightningd", "pay.c")
	for i := 1; i <= 3; i++ {
		if i == 2 {
			insertAfter(t, pay, "\t * partid/groupid uniqueness: we don't know total. */\n", clnSleep)
			insertAfter(t, pay, "#include \"config.h\"\n", "#include <unistd.h>\n")
			g("commit", "-q", "-am", "pay: wait before each payment")
		} else {
			appendComment(t, pay, fmt.Sprintf("/* harmless change %d */\n", i))
			g("commit", "-q", "-am", fmt.Sprintf("pay: harmless change %d", i))
		}
		ids = append(ids, g("rev-parse", "HEAD"))
	}
	return tree, ids
}

// TestSlowBisectCLN plants a sleep in lightningd's payment path in the
// second of three commits after CI's CLN release; bisect must name it.
// Every revision is a full CLN build (minutes each).
func TestSlowBisectCLN(t *testing.T) {
	testsupport.SlowTier(t)
	binaries(t) // btcd comes from the LND release build
	clone, ids := clnHistory(t)
	rep, out := bisectReport(t, "cln@src:"+clone, 3, "Concurrency=4", "TotalPayments=40")
	if len(rep.Culprits) != 1 || rep.Culprits[0].Commit.ID != ids[2] {
		t.Fatalf("culprits %+v, want the second commit %s (%s)", rep.Culprits, ids[2][:12], out)
	}
}

// TestSlowBisectSkipsABrokenRevisionOnP50 bisects an open-loop case (so the
// metric is each launch's median latency) over three commits after the
// release: a harmless one, one that does not compile, and one that fixes
// it and adds the payment-path sleep. The broken revision is skipped and
// listed, and the open boundary names both it and the sleep's commit.
func TestSlowBisectSkipsABrokenRevisionOnP50(t *testing.T) {
	testsupport.SlowTier(t)
	binaries(t)
	tree := keptClone(t, lndSourceCopy(t))
	g := func(args ...string) string { return testsupport.Git(t, tree, args...) }
	g("init", "-q", "-b", "master")
	g("add", "-A")
	g("commit", "-q", "-m", "lnd "+lndRelease)
	lndGo := filepath.Join(tree, "lnd.go")
	appendComment(t, lndGo, "// harmless change 1\n")
	g("commit", "-q", "-am", "lnd: harmless change 1")
	broken := readFile(t, tree, "lnd.go")
	appendComment(t, lndGo, "var _ = lnbenchUndefined // does not compile\n")
	g("commit", "-q", "-am", "lnd: a change that does not build")
	ids := []string{"", "", g("rev-parse", "HEAD")}
	if err := os.WriteFile(lndGo, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	patchSendPayment(t, tree, bisectSleep)
	g("commit", "-q", "-am", "lnd: fix the build; routerrpc: wait before each payment")
	ids = append(ids, g("rev-parse", "HEAD"))

	rep, out := bisectReport(t, "lnd@src:"+tree, 3, "Concurrency=5", "Rate=20", "TotalPayments=60")
	if rep.Metric != "p50" {
		t.Errorf("metric %q, want p50 (the open loop's primary)", rep.Metric)
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0].Commit.ID != ids[2] || !strings.Contains(rep.Skipped[0].Why, "does not build") || !strings.Contains(rep.Skipped[0].Why, "undefined: lnbenchUndefined") {
		t.Errorf("skipped %+v, want the broken commit %s with the compiler's error", rep.Skipped, ids[2][:12])
	}
	if len(rep.Culprits) != 1 {
		t.Fatalf("culprits %+v (%s)", rep.Culprits, out)
	}
	var cands []string
	for _, c := range rep.Culprits[0].Candidates {
		cands = append(cands, c.ID)
	}
	if rep.Culprits[0].Commit.ID != ids[3] || strings.Join(cands, ",") != ids[2]+","+ids[3] {
		t.Errorf("culprit %s, candidates %v: want %s with the skipped %s beside it", rep.Culprits[0].Commit.Short, cands, ids[3][:12], ids[2][:12])
	}
	if md := readFile(t, out, bisect.MarkdownFile); !strings.Contains(md, "Skipped revisions leave the boundary open") {
		t.Errorf("bisect.md does not say the boundary is open:\n%s", md)
	}
}
