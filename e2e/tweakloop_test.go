//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/cli"
	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/report"
)

// lndRelease is the release whose module source the tweak loop patches.
const lndRelease = "v0.21.0-beta"

// lndSourceCopy copies LND's module source (from the module cache, where
// building the release put it) into a writable folder: a user's clone.
func lndSourceCopy(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	testsupport.RequireOrSkip(t, err == nil, fmt.Sprintf("needs the go command (go env GOMODCACHE: %v)", err))
	src := filepath.Join(strings.TrimSpace(string(out)), "github.com", "lightningnetwork", "lnd@"+lndRelease)
	if _, err := os.Stat(src); err != nil {
		dl := exec.Command("go", "mod", "download", "github.com/lightningnetwork/lnd@"+lndRelease)
		dl.Dir = filepath.Join(repoRoot(t), "images", "lnd", lndRelease)
		if b, err := dl.CombinedOutput(); err != nil {
			t.Fatalf("go mod download: %v\n%s", err, b)
		}
	}
	dst := filepath.Join(t.TempDir(), "lnd")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// patchAddInvoice inserts a statement at the top of LND's AddInvoice RPC
// handler: the invoice path of every measured payment.
func patchAddInvoice(t *testing.T, tree, stmt string) {
	t.Helper()
	insertAfter(t, filepath.Join(tree, "rpcserver.go"), "invoice *lnrpc.Invoice) (*lnrpc.AddInvoiceResponse, error) {\n", "\t"+stmt+"\n")
}

// insertAfter inserts text after the first anchor in the file at path
// (the anchor gone fails the test: the patch needs updating).
func insertAfter(t *testing.T, path, anchor, text string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(anchor)) {
		t.Fatalf("%s: the patch's anchor %q is gone; update the patch", path, strings.TrimSpace(anchor))
	}
	data = bytes.Replace(data, []byte(anchor), []byte(anchor+text), 1)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTweakLoop is the node developer's loop: a clone of LND with a
// deliberate 60 ms slowdown in the invoice path (25 ms read 1.18 ± 0.22
// on a busy CI machine, p=0.077), benchmarked against the
// unpatched release in one run. The report must call the patched node
// slower, significantly; editing the clone again must change only its
// build key.
func TestTweakLoop(t *testing.T) {
	// A local-process test (runCLI runs on the local backend): it runs
	// beside the Docker tests (test.sh).
	t.Parallel()
	tree := lndSourceCopy(t)
	patchAddInvoice(t, tree, "time.Sleep(60 * time.Millisecond) // lnbench e2e: deliberate slowdown")
	scen := filepath.Join(t.TempDir(), "tweak.yml")
	yml := fmt.Sprintf(`name: TweakLoop
topology: AlicePaysBob
params:
  Concurrency: [1]
  TotalPayments: [15]
job: {LaunchCount: 1, WarmupCount: 1, IterationCount: 6, InvocationCount: 1}
nodes:
  - release=lnd@%s
  - patched=lnd@src:%s
baseline: release
reuse_network: true
`, lndRelease, tree)
	if err := os.WriteFile(scen, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := runCLI(t, "run", scen)
	rep := readSummary(t, dir)
	var patched *report.Row
	for i, c := range rep.Cases {
		if c.Params[0].Value == "patched" {
			patched = &rep.Cases[i]
		}
	}
	if patched == nil || patched.Ratio == nil {
		t.Fatalf("no patched case with a ratio in %+v", rep.Cases)
	}
	r := *patched.Ratio
	t.Logf("patched vs release: ratio %.3f ± %.3f, median change %+.1f%%, p=%.4f, %s", r.Of, r.SD, 100*r.Change, r.P, r.Verdict)
	// One launch a side (LaunchCount: 1): the iterations show the slowdown
	// (p < alpha, their interval above 1), but one launch cannot tell it
	// from launch-to-launch variance, so the verdict is not yet known.
	if r.Verdict != report.VerdictUnknown || r.Of <= 1 || r.P >= report.DefaultAlpha || r.Level != report.LevelIterations || r.Low <= 1 || r.LaunchesForEffect < 2 {
		t.Errorf("patched node: %+v, want not yet known with p < %g at the iteration level, its interval above 1", r, report.DefaultAlpha)
	}
	for _, n := range rep.Nodes {
		if n.Label == "patched" && (n.Source != tree || n.Build != "lnd@src:"+tree) {
			t.Errorf("patched spec recorded as %+v", n)
		}
	}

	// The clone is the release with one file edited: it builds as the
	// release with that file overlaid, reusing the release's compiled
	// packages (and the slowdown above shows the edit was compiled in).
	spec, err := nodebuild.FromSource("lnd", tree)
	if err != nil {
		t.Fatal(err)
	}
	built, err := nodebuild.Peek(nodebuild.DefaultCacheDir(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the patched tree built in %.1f s as lnd@%s with %d files overlaid", built.Manifest.BuildSeconds, built.Manifest.OverlayBase, built.Manifest.OverlayFiles)
	if built.Manifest.OverlayBase != lndRelease || built.Manifest.OverlayFiles != 1 {
		t.Errorf("patched build: overlaid on %q with %d files, want on %s with 1 (rpcserver.go)", built.Manifest.OverlayBase, built.Manifest.OverlayFiles, lndRelease)
	}

	// Edit the clone again: only the patched spec needs a new build.
	patchAddInvoice(t, tree, "_ = 0 // a second edit")
	var out, errb bytes.Buffer
	// --images, not a chdir: the working directory is the whole process's.
	err = cli.Run(context.Background(), &out, &errb, []string{"build", "--dry-run", "--images", filepath.Join(repoRoot(t), "images"),
		"--node", "lnd@" + lndRelease, "--node", "lnd@src:" + tree})
	if err != nil {
		t.Fatalf("build --dry-run: %v\n%s", err, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "cached in") || !strings.Contains(lines[1], "not built") {
		t.Errorf("after a second edit, want the release cached and the clone not built:\n%s", out.String())
	}
}
