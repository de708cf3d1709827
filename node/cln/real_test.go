package cln_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend/local"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/node/drivers"
	"github.com/lnbench/lnbench/topology"
)

// TestRealNetwork: alice(cln) → carol(lnd) → bob(cln) comes up on btcd
// regtest through the local backend and pays with every CLN method.
// LNBENCH_CLN_BIN names a bin dir with lightningd; LNBENCH_LND_BIN one
// with lnd and btcd; LNBENCH_SHIM the lnbench binary.
func TestRealNetwork(t *testing.T) {
	clnBin, lndBin, shim := os.Getenv("LNBENCH_CLN_BIN"), os.Getenv("LNBENCH_LND_BIN"), os.Getenv("LNBENCH_SHIM")
	if clnBin == "" || lndBin == "" || shim == "" {
		t.Skip("set LNBENCH_CLN_BIN, LNBENCH_LND_BIN and LNBENCH_SHIM")
	}
	work, _ := os.MkdirTemp("", "clnreal")
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
		be.CollectLogs(context.Background(), filepath.Join(work, "logs"))
		t.Fatalf("%v (logs in %s)", err, work)
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
	fw, err := n.Nodes["carol1"].ForwardedCount(ctx)
	t.Logf("carol1 forwarded %d (%v)", fw, err)
}
