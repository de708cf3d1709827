//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/cli"
)

// TestDefaultRunRestoresItsNetwork: lnbench run with no snapshot flag (and
// no $LNBENCH_FRESH_NETWORK) makes AlicePaysBob's snapshot on its first
// run and restores it on the second, saying so; --fresh-network builds
// the network and takes nothing from the cache.
func TestDefaultRunRestoresItsNetwork(t *testing.T) {
	t.Parallel()
	binaries(t)
	bin := buildCLI(t)
	snaps := t.TempDir()
	// Empty, the variable asks nothing (os/exec keeps the last of a name).
	env := append(os.Environ(), cli.FreshNetworkEnv+"=")
	run := func(extra ...string) (string, string) {
		t.Helper()
		arts := artifactsDir(t)
		args := append([]string{"run", "--backend", "local", "--quick", "--yes", "--node", "lnd@" + lndRelease,
			"--snapshot-dir", snaps, "--artifacts", arts, "--images", filepath.Join(repoRoot(t), "images")}, extra...)
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("lnbench %v: %v\n%s", args, err, out)
		}
		dirs, _ := filepath.Glob(filepath.Join(arts, "*", "summary.json"))
		if len(dirs) != 1 {
			t.Fatalf("run folders: %v\n%s", dirs, out)
		}
		return filepath.Dir(dirs[0]), string(out)
	}
	first, _ := run()
	made := readRecord(t, first)
	if len(made.Snapshots) != 1 || !made.Snapshots[0].MadeByThisRun {
		t.Fatalf("first default run: snapshots %+v, want one made by the run", made.Snapshots)
	}
	second, out := run()
	again := readRecord(t, second)
	if len(again.Snapshots) != 1 || again.Snapshots[0].Key != made.Snapshots[0].Key || again.Snapshots[0].MadeByThisRun {
		t.Fatalf("second default run: snapshots %+v, want %s restored from the cache", again.Snapshots, made.Snapshots[0].Key)
	}
	if !strings.Contains(out, "restored") {
		t.Errorf("the second run does not say it restored:\n%s", out)
	}
	fresh, _ := run("--fresh-network")
	if built := readRecord(t, fresh); len(built.Snapshots) != 0 {
		t.Errorf("--fresh-network: snapshots %+v, want none", built.Snapshots)
	}
	readRecords(t, fresh) // payments were made
}
