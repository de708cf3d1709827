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

// TestSnapshotRestoresAPayingNetwork: the first run with --snapshots builds
// AlicePaysBob once, saves it and restores it; a second run restores the
// same snapshot without building; a corrupted snapshot is set aside in one
// line and the network built; an export imported into another folder
// restores there. Every run's payments succeed.
func TestSnapshotRestoresAPayingNetwork(t *testing.T) {
	t.Parallel()
	binaries(t)
	snaps := t.TempDir()
	run := func(dir string) (record.Manifest, string) {
		t.Helper()
		out := runCLI(t, "run", "--node", "lnd@"+lndRelease, "--snapshots", "--snapshot-dir", dir, "--quick", "--yes")
		m, err := record.Read(out)
		if err != nil {
			t.Fatal(err)
		}
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
	phases := func(m record.Manifest, network string) []string {
		var out []string
		for _, s := range m.Setup {
			if s.Network == network {
				out = append(out, s.Phase)
			}
		}
		return out
	}

	first, _ := run(snaps)
	if len(first.Snapshots) != 1 || !first.Snapshots[0].MadeByThisRun || first.Snapshots[0].Bytes == 0 {
		t.Fatalf("first run's snapshots: %+v", first.Snapshots)
	}
	key := first.Snapshots[0].Key
	net := first.Snapshots[0].Network
	if got := strings.Join(phases(first, net), " "); got != "restore chain nodes channels routes" {
		t.Errorf("first run's measured network came up by %q, want restored", got)
	}
	if got := strings.Join(phases(first, net+"-snapshot"), " "); got != "chain nodes fund channels routes" {
		t.Errorf("the snapshot was made by %q", got)
	}

	second, _ := run(snaps)
	if len(second.Snapshots) != 1 || second.Snapshots[0].Key != key || second.Snapshots[0].MadeByThisRun {
		t.Fatalf("second run's snapshots: %+v, want %s restored", second.Snapshots, key)
	}
	if got := phases(second, net+"-snapshot"); len(got) != 0 {
		t.Errorf("the second run built the network again: %v", got)
	}
	for _, s := range second.Setup {
		t.Logf("restored setup: %s %s %.2f s", s.Network, s.Phase, s.Seconds)
	}

	// Exported, then imported into another folder: restores there.
	file := filepath.Join(t.TempDir(), "net.tar.gz")
	other := t.TempDir()
	for _, args := range [][]string{{"snapshots", "export", key, file, "--snapshot-dir", snaps}, {"snapshots", "import", file, "--snapshot-dir", other}} {
		var out, errb bytes.Buffer
		if err := cli.Run(context.Background(), &out, &errb, args); err != nil {
			t.Fatalf("lnbench %v: %v\n%s", args, err, errb.String())
		}
	}
	third, _ := run(other)
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
	fourth, _ := run(snaps)
	aside := false
	for _, w := range fourth.Warnings {
		if strings.Contains(w, "snapshot "+key+" did not restore") && strings.Contains(w, "set aside") && !strings.Contains(w, "\n") {
			aside = true
		}
	}
	if !aside {
		t.Errorf("the corrupted snapshot's warning is missing: %q", fourth.Warnings)
	}
	var out, errb bytes.Buffer
	if err := cli.Run(context.Background(), &out, &errb, []string{"snapshots", "list", "--snapshot-dir", snaps}); err != nil || !strings.Contains(out.String(), "set aside") {
		t.Errorf("list after the corruption: %v\n%s", err, out.String())
	}
}
