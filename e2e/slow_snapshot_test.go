//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/record"
)

// TestSlowSnapshotSetup measures a generated graph's setup built and
// restored from a snapshot at each size of LNBENCH_SNAPSHOT_NODES (default
// 12,50), with the lowscrypt builds the cost curve uses: one run builds
// every launch, the next makes the snapshot once and restores every launch.
// Each restored setup must be shorter than every built one, and every
// payment succeed (snapshotRun). docs/measured.md quotes the log.
func TestSlowSnapshotSetup(t *testing.T) {
	testsupport.SlowTier(t)
	sizes := os.Getenv("LNBENCH_SNAPSHOT_NODES")
	if sizes == "" {
		sizes = "12,50"
	}
	file := filepath.Join(repoRoot(t), "bench", "scenarios", "scale.yml")
	for _, n := range strings.Split(sizes, ",") {
		t.Run(n+"nodes", func(t *testing.T) {
			args := []string{"run", file, "--node", "lnd@" + lndRelease + "+tags=lowscrypt+footprint=small", "--param", "NodeCount=" + n,
				"--param", "Pairs=8", "--param", "TotalPayments=100", "--param", "Concurrency=8", "--job", "LaunchCount=2", "--quick", "--yes"}
			built := setupSeconds(t, readRecord(t, runCLI(t, args...)))
			restored, _ := snapshotRun(t, append(args, "--snapshot-dir", t.TempDir())...)
			times := setupSeconds(t, restored)
			for network, s := range times {
				if strings.HasSuffix(network, "-snapshot") {
					t.Logf("%s nodes: snapshot made in %.1f s", n, s)
					continue
				}
				t.Logf("%s nodes: %s restored in %.1f s", n, network, s)
				for _, b := range built {
					if s >= b {
						t.Errorf("%s nodes: %s restored in %.1f s, a built launch took %.1f s", n, network, s, b)
					}
				}
			}
			for network, s := range built {
				t.Logf("%s nodes: %s built in %.1f s", n, network, s)
			}
		})
	}
}

// setupSeconds is each network's setup, all phases.
func setupSeconds(t *testing.T, m record.Manifest) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, s := range m.Setup {
		out[s.Network] += s.Seconds
	}
	if len(out) == 0 {
		t.Fatalf("run %s recorded no setup", m.RunID)
	}
	return out
}
