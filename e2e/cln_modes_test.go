//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lnbench/lnbench/dbserver/postgres"
	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/record/chanstate"
	"github.com/lnbench/lnbench/record/result"
)

// TestCLNPayersRecordTheirHops: CLN's replies hold no route, so lnbench's
// route log plugin reads xpay's part notifications (invoice mode's pay is
// xpay's in v26, keysend is xkeysend; sendpay knows its route). On an
// all-CLN line of two channels, every successful payment records the 2 hops
// the topology allows (no other route exists; 0, the value before, and 1,
// a direct channel's, both fail).
func TestCLNPayersRecordTheirHops(t *testing.T) {
	t.Parallel()
	spec := clnSpec(t)
	scen := filepath.Join(t.TempDir(), "hops.yml")
	if err := os.WriteFile(scen, []byte(`name: CLNHops
method: RunAlicePaysBobViaCarol
topology: AlicePaysBobViaCarol
params:
  Concurrency: [4]
  TotalPayments: [20]
  CarolsCount: [1]
  Mode: [invoice, keysend]
reuse_network: true
`), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := runCLI(t, "run", scen, "--node", "cln="+spec, "--quick")
	carols := regexp.MustCompile(`CarolsCount=(\d+)`)
	perCase := map[string]int{}
	for _, r := range readRecords(t, dir) {
		if r.Phase != result.Measure || r.Status != result.Succeeded {
			continue
		}
		m := carols.FindStringSubmatch(r.Case)
		if m == nil {
			t.Fatalf("case %q names no CarolsCount", r.Case)
		}
		n, _ := strconv.Atoi(m[1])
		if r.Hops != n+1 {
			t.Errorf("%s payment %d: %d hops, want %d", r.Case, r.Seq, r.Hops, n+1)
		}
		perCase[r.Case]++
	}
	if len(perCase) != 2 {
		t.Fatalf("successful payments in %d cases, want 2: %v", len(perCase), perCase)
	}
}

// TestCreateInvoiceModePaysNothing: Mode=create-invoice times the payee's
// invoice call and pays nothing, on CLN and on LND. Each node's channel, read
// by lnbench from the node's own state (LND's ListChannels, CLN's wallet),
// moves no commitment during the measured iterations.
func TestCreateInvoiceModePaysNothing(t *testing.T) {
	t.Parallel()
	for name, spec := range map[string]string{"cln": clnSpec(t), "lnd": "lnd@v0.21.0-beta"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := runCLI(t, "run", "--node", name+"="+spec, "--param", "Mode=create-invoice", "--param", "Concurrency=4", "--param", "TotalPayments=50", "--quick")
			measured := 0
			for _, r := range readRecords(t, dir) {
				if r.Phase != result.Measure {
					continue
				}
				measured++
				// The stored times keep no monotonic reading: End-Start is
				// the wall clock's, which the clock's discipline slews
				// (CI: 47 us short over a 32.7 ms call; chrony slews up to
				// 8.3%), so it agrees with InvoiceNs to 10%.
				tol := 1000 + r.InvoiceNs/10
				if d := r.Latency().Nanoseconds() - r.InvoiceNs; r.Status != result.Succeeded || r.InvoiceNs <= 0 || r.PaymentNs != 0 || d < -tol || d > tol {
					t.Fatalf("record %+v: want a succeeded invoice call and no payment", r)
				}
			}
			if measured == 0 {
				t.Fatal("no measured invoices")
			}
			// lnbench's readings of the channel during the measured
			// iterations (LND's ListChannels, CLN's wallet): one
			// commitment number throughout.
			readings, err := chanstate.Load(filepath.Join(dir, chanstate.FileName))
			if err != nil {
				t.Fatal(err)
			}
			seen := map[uint64]bool{}
			for _, rd := range readings {
				for _, c := range rd.Channels {
					if rd.Phase == result.Measure && rd.Node == "alice" {
						seen[c.Updates] = true
					}
				}
			}
			if len(seen) != 1 {
				t.Errorf("alice's channel read at commitment numbers %v during the measured invoices, want one", seen)
			}
		})
	}
}

// TestLNDPostgresNativeKeepsInvoicesInSQLTables: db=postgres-native runs
// LND on the network's PostgreSQL server with its native SQL tables. Read
// by psql during the run (not by lnbench), bob's database has an invoices
// table, which LND's key-value schema on PostgreSQL does not, and its rows
// grow as the run pays.
func TestLNDPostgresNativeKeepsInvoicesInSQLTables(t *testing.T) {
	t.Parallel()
	pgBin, err := postgres.BinDir("/usr/lib/postgresql")
	testsupport.RequireOrSkip(t, err == nil, fmt.Sprintf("a PostgreSQL server (%v; ./test.sh installs it)", err))
	var mu sync.Mutex
	var counts []int
	p := newPoller()
	go func() {
		defer close(p.done)
		for p.tick(500 * time.Millisecond) {
			for _, proc := range processesMentioning("--alias=bob") {
				if !strings.Contains(proc, "--db.use-native-sql") {
					continue
				}
				dsn := ""
				for _, a := range strings.Fields(proc) {
					if v, ok := strings.CutPrefix(a, "--db.postgres.dsn="); ok {
						dsn = v
					}
				}
				out, err := exec.Command(filepath.Join(pgBin, "psql"), dsn, "-Atc", "SELECT count(*) FROM invoices").Output()
				if n, perr := strconv.Atoi(strings.TrimSpace(string(out))); err == nil && perr == nil {
					mu.Lock()
					counts = append(counts, n)
					mu.Unlock()
				}
			}
		}
	}()
	dir := runCLI(t, "run", "--node", "pgn=lnd@v0.21.0-beta+db=postgres-native", "--param", "Concurrency=4", "--param", "TotalPayments=100", "--quick")
	p.end()
	// Each payment's invoice is made inside it, so the table can hold at
	// most one row per payment record and the network's warm-up payment.
	payments := len(readRecords(t, dir))
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d payments; psql read bob's invoices table %d times: %v", payments, len(counts), counts)
	if len(counts) < 2 || counts[len(counts)-1] <= counts[0] || counts[len(counts)-1] > payments+1 {
		t.Fatalf("bob's invoices table read %v over %d payments (+1 warm-up): want readings that grow and never exceed them", counts, payments)
	}
}
