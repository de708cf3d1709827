//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/node/cln"
)

// TestCLNBoundReadsTheWallet: on Core Lightning, whose RPC has no
// commitment number, lnbench reads each channel's from the node's wallet
// (channels.next_index_local), so the bound line counts commitment updates
// per payment as on LND. Cross-checked with Debian's sqlite3 reading alice's
// wallet by hand during the run: each such reading lies between lnbench's
// own just before and after it.
func TestCLNBoundReadsTheWallet(t *testing.T) {
	spec := clnSpec(t)
	testsupport.RequireTools(t, "sqlite3")
	dir, byHand := runReadingAlice(t, readCLNAliceByHand,
		"run", "--backend", "local", "--node", "cln="+spec, "--param", "Concurrency=20,80", "--param", "TotalPayments=200", "--quick")
	cases := readBounds(t, dir)
	if len(cases) != 2 {
		t.Fatalf("%d resource cases", len(cases))
	}
	for _, c := range cases {
		t.Logf("%s: %s", c.ID, c.Verdict.Text)
		if strings.Contains(c.Verdict.Text, "commitment updates unknown") {
			t.Errorf("%s: %s", c.ID, c.Verdict.Text)
		}
		u := c.Channels
		if u == nil || len(u.Channels) == 0 {
			t.Errorf("%s: no channel use", c.ID)
			continue
		}
		// Each payment moves alice's commitment twice (add, settle) at most.
		if u.UpdatesPerPayment <= 0 || u.UpdatesPerPayment > 2.05 {
			t.Errorf("%s: %.2f commitment updates per payment", c.ID, u.UpdatesPerPayment)
		}
	}
	checkReadingsBracket(t, dir, byHand, "sqlite3")
}

// readCLNAliceByHand finds alice's lightningd among this process's
// children and reads its one channel's commitment number from its wallet
// with sqlite3 (next_index_local is the next one: the current is one less).
func readCLNAliceByHand() (lncliReading, bool) {
	for _, p := range processesMentioning("--alias=alice") {
		f := strings.Fields(p)
		if len(f) < 2 || filepath.Base(f[1]) != "lightningd" || parentOf(strings.TrimSuffix(f[0], ":")) != os.Getpid() {
			continue
		}
		var dir string
		for _, a := range f[2:] {
			if v, ok := strings.CutPrefix(a, "--lightning-dir="); ok {
				dir = v
			}
		}
		h := lncliReading{from: time.Now()}
		out, err := exec.Command("sqlite3", "-readonly", "-cmd", ".timeout 2000", cln.WalletFile(dir), "SELECT next_index_local FROM channels").Output()
		h.to = time.Now()
		rows := strings.Fields(string(out))
		if err != nil || len(rows) != 1 {
			return lncliReading{}, false
		}
		next, err := strconv.ParseUint(rows[0], 10, 64)
		h.updates = next - 1
		return h, err == nil && next > 0
	}
	return lncliReading{}, false
}
