//go:build e2e

package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/report"
)

// TestSlowCLNPatchedTreeIsSlower benchmarks CI's CLN tree against a copy
// with a 50 ms sleep in the invoice command (which bob runs inside every
// measured payment) in one run: two builds from source, cached by content,
// then the default comparison design. The verdict must be slower, p < 0.05.
func TestSlowCLNPatchedTreeIsSlower(t *testing.T) {
	testsupport.SlowTier(t)
	tarball := clnTarball(t)
	base := filepath.Join(t.TempDir(), "lightning-v26.06.6")
	patched := filepath.Join(t.TempDir(), "lightning-v26.06.6")
	for _, dir := range []string{base, patched} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("tar", "-xf", tarball, "-C", dir, "--strip-components=1").CombinedOutput(); err != nil {
			t.Fatalf("tar: %v %s", err, out)
		}
	}
	invoice := filepath.Join(patched, "lightningd", "invoice.c")
	src, err := os.ReadFile(invoice)
	if err != nil {
		t.Fatal(err)
	}
	anchor := []byte("\tinfo = tal(cmd, struct invoice_info);\n")
	if !bytes.Contains(src, anchor) {
		t.Fatalf("%s: the patch's anchor is gone", invoice)
	}
	src = bytes.Replace(src, anchor, append(anchor, []byte("\tusleep(50000); /* lnbench: deliberate slowdown */\n")...), 1)
	src = append([]byte("#include <unistd.h>\n"), src...)
	if err := os.WriteFile(invoice, src, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := runCLI(t, "run", "--node", "base=cln@src:"+base, "--node", "slow=cln@src:"+patched, "--baseline", "base",
		"--param", "Concurrency=4", "--param", "TotalPayments=40")
	rep := readSummary(t, dir)
	var row *report.Row
	for i := range rep.Cases {
		if rep.Cases[i].Node == "slow" {
			row = &rep.Cases[i]
		}
	}
	if row == nil || row.Ratio == nil {
		t.Fatalf("no compared row for the patched tree: %+v", rep.Cases)
	}
	r := row.Ratio
	t.Logf("patched/base: ratio %.3f [%.3f, %.3f], p %.4f, %s, %d+%d launches, MDE %.1f%%", r.Of, r.Low, r.High, r.P, r.Verdict, r.NBase, r.NNew, 100*r.MDE)
	if r.Verdict != "slower" || r.P >= 0.05 {
		t.Errorf("verdict %s (p %.4f), want slower with p < 0.05", r.Verdict, r.P)
	}
}
