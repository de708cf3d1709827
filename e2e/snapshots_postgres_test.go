//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/dbserver/postgres"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
)

// postgresScenario is LND alice paying CLN bob, both on db=postgres; rest
// is the scenario's params and job.
func postgresScenario(t *testing.T, name, rest string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "topology.yml"), []byte(fmt.Sprintf(`name: PGAliceBob
nodes:
  - {name: alice}
  - {name: bob, node: %q}
channels:
  - {from: alice, to: bob}
payers: [alice]
payee: bob
`, clnSpec(t))), 0o644); err != nil {
		t.Fatal(err)
	}
	scen := filepath.Join(dir, "scenario.yml")
	if err := os.WriteFile(scen, []byte("name: "+name+"\ntopology: topology.yml\nnode:\n  db_backend: postgres\n"+rest), 0o644); err != nil {
		t.Fatal(err)
	}
	return scen
}

const twentyPayments = "params: {Concurrency: [4], TotalPayments: [20]}\n"

// checkDumps: the snapshot keeps each node's PostgreSQL database as a
// dump in the server's folder, and nothing of the run's cluster (its
// password is the run's).
func checkDumps(t *testing.T, snaps, key string) {
	t.Helper()
	folder := filepath.Join(snaps, key, "data", postgres.Actor)
	for _, db := range []string{"alice", "bob"} {
		info, err := os.Stat(postgres.DumpFile(folder, db))
		if err != nil || info.Size() == 0 {
			t.Errorf("snapshot %s: %s's dump: %v", key, db, err)
		}
	}
	filepath.WalkDir(folder, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(path, ".dump") {
			t.Errorf("snapshot %s keeps %s beside the dumps", key, path)
		}
		return nil
	})
}

// TestSnapshotRestoresPostgresNodes: on the local backend, LND alice and
// CLN bob on db=postgres, made once and restored twice: their databases
// travel as dumps, loaded into the restored network's own server before
// the nodes start (a node that found an empty database would have no
// wallet and no channel), and every payment succeeds.
func TestSnapshotRestoresPostgresNodes(t *testing.T) {
	t.Parallel()
	binaries(t)
	scen := postgresScenario(t, "PGSnapshot", twentyPayments+"job: {WarmupCount: 0, IterationCount: 1}\n")
	snaps := t.TempDir()
	run := func(dir string) (record.Manifest, string) {
		t.Helper()
		return snapshotRun(t, "run", scen, "--snapshot-dir", dir)
	}
	key, net := madeThenRestored(t, run, snaps)
	checkDumps(t, snaps, key)

	// A dump that does not load (same size, zeroed) fails the restore:
	// set aside in one line, the network built instead.
	dump := postgres.DumpFile(filepath.Join(snaps, key, "data", postgres.Actor), "alice")
	info, err := os.Stat(dump)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dump, make([]byte, info.Size()), 0o600); err != nil {
		t.Fatal(err)
	}
	third, _ := run(snaps)
	aside := false
	for _, w := range third.Warnings {
		if strings.Contains(w, "snapshot "+key+" did not restore") && strings.Contains(w, "alice") && !strings.Contains(w, "\n") {
			aside = true
		}
	}
	if !aside || len(third.Snapshots) != 0 {
		t.Errorf("a zeroed dump: warnings %q, snapshots %+v; want it set aside in one line naming alice", third.Warnings, third.Snapshots)
	}
	if got := strings.Join(setupPhases(third, net), " "); got != "chain nodes fund channels routes" {
		t.Errorf("the network after the failed restore came up by %q, want built", got)
	}
}

// TestComposeSnapshotRestoresPostgresNodes: the same on compose, where the
// server is a container: the dumps come out of it and go back in through
// docker exec, and both launches restore from the one snapshot.
func TestComposeSnapshotRestoresPostgresNodes(t *testing.T) {
	bin := composeSetup(t)
	snaps := t.TempDir()
	scen := postgresScenario(t, composeUniqueName("CmpPGSnapshot"), twentyPayments+"job: {LaunchCount: 2, WarmupCount: 0, IterationCount: 1}\n")
	r := startCompose(t, bin, scen, "--snapshots", "--snapshot-dir", snaps, "--yes")
	r.finish(8 * time.Minute)
	m := readRecord(t, r.dir())
	if len(m.Snapshots) != 2 || m.Snapshots[0].Key != m.Snapshots[1].Key || !m.Snapshots[0].MadeByThisRun {
		t.Fatalf("snapshots: %+v, want both launches restored from one made by this run\n%s", m.Snapshots, r.out)
	}
	for _, s := range m.Snapshots {
		if got := strings.Join(setupPhases(m, s.Network), " "); got != "restore chain nodes channels routes" {
			t.Errorf("%s came up by %q, want restored", s.Network, got)
		}
	}
	recs, err := result.ReadFile(filepath.Join(r.dir(), record.PaymentsFile))
	if err != nil || len(recs) != 40 {
		t.Fatalf("payments: %d, %v; want 40", len(recs), err)
	}
	for _, rec := range recs {
		if rec.Status != result.Succeeded {
			t.Fatalf("a payment on a restored network failed: %+v", rec)
		}
	}
	checkDumps(t, snaps, m.Snapshots[0].Key)
	r.checkNothingLeft()
}
