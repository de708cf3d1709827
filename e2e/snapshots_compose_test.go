//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
)

// TestComposeSnapshotRestores: on compose, two launches of AlicePaysBob
// with --snapshots: the snapshot is made once (a network of its own), both
// launches restore it into their containers' bind mounts (owned by the
// containers' user, not the root harness) and pay, and nothing of the run
// is left on the engine.
func TestComposeSnapshotRestores(t *testing.T) {
	bin := composeSetup(t)
	scen := composeScenarioFile(t, `name: `+composeUniqueName("CmpSnapshot")+`
topology: AlicePaysBob
params: {Concurrency: [4], TotalPayments: [20]}
job: {LaunchCount: 2, WarmupCount: 0, IterationCount: 1}
`)
	r := startCompose(t, bin, scen, "--snapshots", "--snapshot-dir", t.TempDir(), "--yes")
	r.finish(6 * time.Minute)
	dir := r.dir()
	m := readRecord(t, dir)
	if len(m.Snapshots) != 2 || m.Snapshots[0].Key != m.Snapshots[1].Key || !m.Snapshots[0].MadeByThisRun {
		t.Fatalf("snapshots: %+v, want both launches restored from one made by this run\n%s", m.Snapshots, r.out)
	}
	for _, s := range m.Snapshots {
		if got := strings.Join(setupPhases(m, s.Network), " "); got != "restore chain nodes channels routes" {
			t.Errorf("%s came up by %q, want restored", s.Network, got)
		}
	}
	recs, err := result.ReadFile(filepath.Join(dir, record.PaymentsFile))
	if err != nil || len(recs) != 40 {
		t.Fatalf("payments: %d, %v; want 40", len(recs), err)
	}
	for _, rec := range recs {
		if rec.Status != result.Succeeded {
			t.Fatalf("a payment on a restored network failed: %+v", rec)
		}
	}
	if _, err := os.Stat(filepath.Join(r.tmp, "lnbench", filepath.Base(dir))); !os.IsNotExist(err) {
		t.Errorf("the run's work folder (keys, macaroons) is left: %v", err)
	}
	r.checkNothingLeft()
}
