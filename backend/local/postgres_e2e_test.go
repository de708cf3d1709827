//go:build e2e

package local_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend/local"
	"github.com/lnbench/lnbench/dbserver/postgres"
	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/node/drivers"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/topology"
)

// TestPostgresNodes: alice (LND) pays bob (CLN), both on db=postgres, on
// the local backend. What the server itself holds says the nodes keep
// their state there: bob's invoices table has one paid invoice more for
// each payment, PostgreSQL's own statistics count alice's commits, and
// neither node has a database file of its own. Teardown stops the server
// and removes its cluster.
func TestPostgresNodes(t *testing.T) {
	clnBin := os.Getenv("LNBENCH_CLN_BIN")
	testsupport.RequireOrSkip(t, clnBin != "", "LNBENCH_CLN_BIN: a folder with lightningd (./test.sh builds CLN from ../shared/cln)")
	pgBin, err := postgres.BinDir("/usr/lib/postgresql")
	testsupport.RequireOrSkip(t, err == nil, fmt.Sprintf("a PostgreSQL server (%v; ./test.sh installs it)", err))
	shim, _ := filepath.Abs("../../bin/lnbench")
	testsupport.RequireFile(t, shim, "bin/lnbench, the bitcoin-cli shim (./test.sh builds it)")
	spec, err := nodebuild.Find("../../images", "lnd", scenario.DefaultNode.Version)
	if err != nil {
		t.Fatal(err)
	}
	bins, err := nodebuild.Locate(nodebuild.DefaultCacheDir(), spec)
	testsupport.RequireOrSkip(t, err == nil, fmt.Sprintf("lnd and btcd binaries (%v; ./test.sh builds them)", err))
	work := t.TempDir()
	be, err := local.New(local.Options{RunID: "t", WorkDir: work, BinDirs: map[string]string{"cln/src": clnBin, "lnd/v": bins.Dir}, ChainBinDir: bins.Dir, BitcoinCLI: shim})
	if err != nil {
		t.Fatal(err)
	}
	torn := false
	defer func() {
		if !torn {
			be.Teardown(context.Background())
		}
	}()
	topo := topology.AlicePaysBob()
	for i := range topo.Nodes {
		topo.Nodes[i].Implementation, topo.Nodes[i].Version = "lnd", "v"
		if topo.Nodes[i].Name == "bob" {
			topo.Nodes[i].Implementation, topo.Nodes[i].Version = "cln", "src"
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	n, err := network.Up(ctx, be, topo, network.Options{Drivers: drivers.Builtin(), DBBackend: "postgres", Log: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	aliceDSN, bobDSN := argValue(n.Endpoints["alice"].Args, "--db.postgres.dsn="), argValue(n.Endpoints["bob"].Args, "--wallet=")
	if aliceDSN == "" || bobDSN == "" {
		t.Fatalf("no database URL in the nodes' args: alice %q, bob %q", aliceDSN, bobDSN)
	}
	query := func(dsn, sql string) int {
		t.Helper()
		out, err := exec.Command(filepath.Join(pgBin, "psql"), dsn, "-Atc", sql).CombinedOutput()
		v, perr := strconv.Atoi(strings.TrimSpace(string(out)))
		if err != nil || perr != nil {
			t.Fatalf("psql %q: %v %s", sql, err, out)
		}
		return v
	}
	const paidInvoices = "SELECT count(*) FROM invoices WHERE state = 1" // CLN: 0 unpaid, 1 paid, 2 expired
	const commits = "SELECT xact_commit FROM pg_stat_database WHERE datname = 'alice'"
	paidBefore, commitsBefore := query(bobDSN, paidInvoices), query(aliceDSN, commits)
	const payments = 20
	for i := 0; i < payments; i++ {
		inv, err := n.Nodes["bob"].AddInvoice(ctx, 1000, fmt.Sprintf("pg-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if res, err := n.Nodes["alice"].Pay(ctx, node.Payment{PaymentRequest: inv.PaymentRequest}); err != nil || !res.Succeeded {
			t.Fatalf("payment %d: %+v %v", i, res, err)
		}
	}
	if got := query(bobDSN, paidInvoices) - paidBefore; got != payments {
		t.Errorf("bob's PostgreSQL database holds %d more paid invoices, want %d", got, payments)
	}
	// Backends flush their statistics about once a second.
	var got int
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		if got = query(aliceDSN, commits) - commitsBefore; got >= payments {
			break
		}
	}
	t.Logf("alice's database: %d commits over %d payments (pg_stat_database)", got, payments)
	if got < payments {
		t.Errorf("alice's database committed %d transactions over %d payments: want at least one each", got, payments)
	}
	for _, name := range []string{"alice", "bob"} {
		if files := databaseFiles(t, be.DataFolder(name)); len(files) > 0 {
			t.Errorf("%s keeps database files of its own: %v", name, files)
		}
	}
	actors, _ := be.Actors(ctx)
	var pgPID int
	for _, a := range actors {
		if a.Name == postgres.Actor && a.Role == "database" {
			pgPID = a.PID
		}
	}
	if pgPID == 0 {
		t.Errorf("no database actor among %+v", actors)
	}
	torn = true
	be.Teardown(context.Background())
	if pgPID != 0 {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pgPID)); err == nil {
			t.Errorf("the PostgreSQL server (PID %d) outlived the teardown", pgPID)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(os.TempDir(), "lnbench-postgres-*")); len(left) > 0 {
		t.Logf("clusters left in %s (another run's, or this one's): %v", os.TempDir(), left)
	}
}

// argValue is the value of the first arg with prefix ("" if none).
func argValue(args []string, prefix string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, prefix); ok {
			return v
		}
	}
	return ""
}

// databaseFiles are the bbolt, SQLite and LND-on-SQLite files under dir.
func databaseFiles(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			switch filepath.Ext(path) {
			case ".db", ".sqlite", ".sqlite3":
				out = append(out, strings.TrimPrefix(path, dir+"/"))
			}
		}
		return nil
	})
	return out
}
