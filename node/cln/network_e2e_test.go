//go:build e2e

package cln_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend/local"
	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/node/drivers"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/topology"
)

// TestRealNetwork: alice(cln) → carol(lnd) → bob(cln) comes up on btcd
// regtest through the local backend and pays with every CLN method.
// LNBENCH_CLN_BIN names a bin dir with lightningd (./test.sh builds CI's
// tree into it); lnd and btcd come from the build cache and bitcoin-cli is
// the repository's bin/lnbench (./test.sh builds both).
func TestRealNetwork(t *testing.T) {
	t.Parallel()
	clnBin := os.Getenv("LNBENCH_CLN_BIN")
	testsupport.RequireOrSkip(t, clnBin != "", "LNBENCH_CLN_BIN: a folder with lightningd (./test.sh builds CLN from ../shared/cln)")
	shim, _ := filepath.Abs("../../bin/lnbench")
	testsupport.RequireFile(t, shim, "bin/lnbench, the bitcoin-cli shim (./test.sh builds it)")
	spec, err := nodebuild.Find("../../images", "lnd", scenario.DefaultNode.Version)
	if err != nil {
		t.Fatal(err)
	}
	bins, err := nodebuild.Locate(nodebuild.DefaultCacheDir(), spec)
	testsupport.RequireOrSkip(t, err == nil, fmt.Sprintf("lnd and btcd binaries (%v; ./test.sh builds them)", err))
	lndBin := bins.Dir
	work := t.TempDir()
	be, err := local.New(local.Options{RunID: "t", WorkDir: work, BinDirs: map[string]string{"cln/src": clnBin, "lnd/v": lndBin}, ChainBinDir: lndBin, BitcoinCLI: shim})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Teardown(context.Background())
	topo := topology.AlicePaysBobViaCarol(1)
	for i := range topo.Nodes {
		topo.Nodes[i].Implementation, topo.Nodes[i].Version = "cln", "src"
		if topo.Nodes[i].Name == "carol1" {
			topo.Nodes[i].Implementation, topo.Nodes[i].Version = "lnd", "v"
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	start := time.Now()
	n, err := network.Up(ctx, be, topo, network.Options{Drivers: drivers.Builtin(), Log: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("network up in %v", time.Since(start))
	alice, bob := n.Nodes["alice"], n.Nodes["bob"]
	for _, m := range []string{"pay", "xpay", "sendpay"} {
		inv, err := bob.AddInvoice(ctx, 100, "t")
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		res, err := alice.Pay(ctx, node.Payment{PaymentRequest: inv.PaymentRequest, Method: m})
		t.Logf("%s: %+v %v in %v", m, res, err, time.Since(t0))
		if err != nil || !res.Succeeded {
			t.Errorf("%s: %+v %v", m, res, err)
		}
	}
	bi, _ := bob.Info(ctx)
	res, err := alice.Pay(ctx, node.Payment{KeysendDest: bi.PubKey, AmountSat: 100})
	if err != nil || !res.Succeeded {
		t.Errorf("keysend: %+v %v", res, err)
	}
	// carol1 (LND) forwarded the warm-up payment and the four above.
	if fw, err := n.Nodes["carol1"].ForwardedCount(ctx); err != nil || fw != 5 {
		t.Errorf("carol1 forwarded %d (%v), want 5", fw, err)
	}
}
