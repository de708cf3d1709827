//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/cli"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
)

// lndOlderRelease is the older release test.sh builds (CI's comparisons).
const lndOlderRelease = "v0.20.2-beta"

// TestSnapshotRestoresAPayingNetwork: the first run with --snapshots builds
// AlicePaysBob once, saves it and restores it; a second run restores the
// same snapshot without building; another lnd build makes its own; a
// corrupted snapshot is set aside in one line and the network built; an
// export imported into another folder restores there. Every run's payments
// succeed.
func TestSnapshotRestoresAPayingNetwork(t *testing.T) {
	t.Parallel()
	binaries(t)
	snaps := t.TempDir()
	run := func(dir string) (record.Manifest, string) {
		t.Helper()
		return snapshotRun(t, "run", "--node", "lnd@"+lndRelease, "--snapshot-dir", dir, "--quick")
	}
	key, net := madeThenRestored(t, run, snaps)

	// Another build is another network: its own snapshot, never the old one.
	other, _ := snapshotRun(t, "run", "--node", "lnd@"+lndOlderRelease, "--snapshot-dir", snaps, "--quick")
	if len(other.Snapshots) != 1 || other.Snapshots[0].Key == key || !other.Snapshots[0].MadeByThisRun {
		t.Errorf("lnd %s restored %+v, want a snapshot of its own (not %s)", lndOlderRelease, other.Snapshots, key)
	}

	// Exported, then imported into another folder: restores there.
	file := filepath.Join(t.TempDir(), "net.tar.gz")
	elsewhere := t.TempDir()
	for _, args := range [][]string{{"snapshots", "export", key, file, "--snapshot-dir", snaps}, {"snapshots", "import", file, "--snapshot-dir", elsewhere}} {
		var out, errb bytes.Buffer
		if err := cli.Run(context.Background(), &out, &errb, args); err != nil {
			t.Fatalf("lnbench %v: %v\n%s", args, err, errb.String())
		}
	}
	third, _ := run(elsewhere)
	if len(third.Snapshots) != 1 || third.Snapshots[0].Key != key || third.Snapshots[0].MadeByThisRun {
		t.Errorf("imported snapshot not restored: %+v", third.Snapshots)
	}

	// A corrupted channel database (same size, zeroed): alice cannot open
	// it, the snapshot is set aside in one line, the network built.
	db := filepath.Join(snaps, key, "data", "alice", "data", "graph", "simnet", "channel.db")
	info, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, make([]byte, info.Size()), 0o600); err != nil {
		t.Fatal(err)
	}
	fourth, fourthDir := run(snaps)
	aside := false
	for _, w := range fourth.Warnings {
		if strings.Contains(w, "snapshot "+key+" did not restore") && strings.Contains(w, "set aside") && !strings.Contains(w, "\n") {
			aside = true
		}
	}
	if !aside {
		t.Errorf("the corrupted snapshot's warning is missing: %q", fourth.Warnings)
	}
	// The failed restore is filed apart from the network built after it.
	if len(fourth.Snapshots) != 0 {
		t.Errorf("a built network is recorded as restored: %+v", fourth.Snapshots)
	}
	if got := strings.Join(setupPhases(fourth, net), " "); got != "chain nodes fund channels routes" {
		t.Errorf("the network built after the failed restore came up by %q", got)
	}
	if got := setupPhases(fourth, net+"-restore"); len(got) == 0 {
		t.Errorf("the failed restore's phases are not recorded under %s-restore", net)
	}
	if _, err := os.Stat(filepath.Join(fourthDir, "nodes", net+"-restore", "alice")); err != nil {
		t.Errorf("the failed restore's logs: %v", err)
	}
	var out, errb bytes.Buffer
	if err := cli.Run(context.Background(), &out, &errb, []string{"snapshots", "list", "--snapshot-dir", snaps}); err != nil || !strings.Contains(out.String(), "set aside") {
		t.Errorf("list after the corruption: %v\n%s", err, out.String())
	}
}

// TestSnapshotRestoresACLNNetwork: Core Lightning's AlicePaysBob, made once
// and restored twice. Its chain is regtest, whose database btcd erases at
// start: the snapshot replays the chain's blocks instead.
func TestSnapshotRestoresACLNNetwork(t *testing.T) {
	t.Parallel()
	spec := clnSpec(t)
	run := func(dir string) (record.Manifest, string) {
		t.Helper()
		return snapshotRun(t, "run", "--node", "cln="+spec, "--param", "Concurrency=4", "--param", "TotalPayments=20", "--snapshot-dir", dir, "--quick")
	}
	madeThenRestored(t, run, t.TempDir())
}

// TestSnapshotRestoresAGeneratedGraph: a generated graph of 12 LND nodes,
// made once and restored twice; every drawn pair routes and pays.
func TestSnapshotRestoresAGeneratedGraph(t *testing.T) {
	t.Parallel()
	binaries(t)
	file := filepath.Join(repoRoot(t), "bench", "scenarios", "scale.yml")
	run := func(dir string) (record.Manifest, string) {
		t.Helper()
		return snapshotRun(t, "run", file, "--node", "lnd@"+lndRelease, "--param", "NodeCount=12", "--param", "Pairs=8",
			"--param", "TotalPayments=16", "--param", "Concurrency=4", "--snapshot-dir", dir, "--quick")
	}
	madeThenRestored(t, run, t.TempDir())
}

// snapshotRun runs lnbench with --snapshots and returns its record; every
// payment must have succeeded.
func snapshotRun(t *testing.T, args ...string) (record.Manifest, string) {
	t.Helper()
	out := runCLI(t, append(args, "--snapshots", "--yes")...)
	m := readRecord(t, out)
	recs, err := result.ReadFile(filepath.Join(out, record.PaymentsFile))
	if err != nil || len(recs) == 0 {
		t.Fatalf("payments: %d, %v", len(recs), err)
	}
	for _, r := range recs {
		if r.Status != result.Succeeded {
			t.Fatalf("a payment on the restored network failed: %+v", r)
		}
	}
	return m, out
}

// madeThenRestored runs twice on an empty snapshot folder: the first run
// makes the snapshot (a network built on its own) and restores it, the
// second restores it without building. It returns the snapshot's key and
// its network's name.
func madeThenRestored(t *testing.T, run func(dir string) (record.Manifest, string), dir string) (key, net string) {
	t.Helper()
	first, _ := run(dir)
	if len(first.Snapshots) != 1 || !first.Snapshots[0].MadeByThisRun || first.Snapshots[0].Bytes == 0 {
		t.Fatalf("first run's snapshots: %+v", first.Snapshots)
	}
	key, net = first.Snapshots[0].Key, first.Snapshots[0].Network
	if got := strings.Join(setupPhases(first, net), " "); got != "restore chain nodes channels routes" {
		t.Errorf("first run's measured network came up by %q, want restored", got)
	}
	if got := strings.Join(setupPhases(first, net+"-snapshot"), " "); got != "chain nodes fund channels routes" {
		t.Errorf("the snapshot was made by %q", got)
	}
	second, _ := run(dir)
	if len(second.Snapshots) != 1 || second.Snapshots[0].Key != key || second.Snapshots[0].MadeByThisRun {
		t.Fatalf("second run's snapshots: %+v, want %s restored; its warnings: %q; its setup: %+v", second.Snapshots, key, second.Warnings, second.Setup)
	}
	if got := setupPhases(second, net+"-snapshot"); len(got) != 0 {
		t.Errorf("the second run built the network again: %v", got)
	}
	for _, s := range append(first.Setup, second.Setup...) {
		t.Logf("setup: %s %s %.2f s", s.Network, s.Phase, s.Seconds)
	}
	return key, net
}

func setupPhases(m record.Manifest, network string) []string {
	var out []string
	for _, s := range m.Setup {
		if s.Network == network {
			out = append(out, s.Phase)
		}
	}
	return out
}

func readRecord(t *testing.T, dir string) record.Manifest {
	t.Helper()
	m, err := record.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
