//go:build e2e

package bitcoincli

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/btcsuite/btcd/txscript"
	"github.com/btcsuite/btcd/wire"

	"github.com/lnbench/lnbench/chain/btcd"
	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/scenario"
)

// realBtcd starts btcd on regtest from the default LND build's binaries
// (./test.sh builds them) and returns the shim's base arguments.
func realBtcd(t *testing.T) (args []string, pass string) {
	args, pass, _ = realBtcdMiningTo(t)
	return args, pass
}

// miner is what a test needs to spend the coinbases of a real btcd: the
// key btcd mines to and where its RPC listens.
type miner struct {
	key        *btcec.PrivateKey
	host, cert string
}

// realBtcdMiningTo is realBtcd with btcd mining to a key the test holds.
func realBtcdMiningTo(t *testing.T) (args []string, pass string, m miner) {
	t.Helper()
	spec, err := nodebuild.Find("../../images", "lnd", scenario.DefaultNode.Version)
	if err != nil {
		t.Fatal(err)
	}
	bins, err := nodebuild.Locate(nodebuild.DefaultCacheDir(), spec)
	testsupport.RequireOrSkip(t, err == nil, fmt.Sprintf("btcd binary (%v; ./test.sh builds it)", err))
	dir := t.TempDir()
	port := freePort(t)
	key, _ := btcec.NewPrivateKey()
	mining, _ := btcutil.NewAddressPubKeyHash(btcutil.Hash160(key.PubKey().SerializeCompressed()), &chaincfg.RegressionNetParams)
	cfg := btcd.Config{Network: btcd.Regtest, DataDir: filepath.Join(dir, "data"), LogDir: filepath.Join(dir, "logs"),
		RPCListen: fmt.Sprintf("127.0.0.1:%d", port), P2PListen: fmt.Sprintf("127.0.0.1:%d", freePort(t)),
		RPCUser: "u", RPCPass: "p", RPCCert: filepath.Join(dir, CertFile), RPCKey: filepath.Join(dir, "rpc.key"),
		MiningAddr: mining.EncodeAddress()}
	cmd := exec.Command(filepath.Join(bins.Dir, "btcd"), cfg.Args()...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	m = miner{key: key, host: cfg.RPCListen, cert: cfg.RPCCert}
	return []string{"-regtest", "-datadir=" + dir, "-rpcconnect=127.0.0.1", fmt.Sprintf("-rpcport=%d", port), "-rpcuser=u", "-stdinrpcpass"}, "p", m
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// cli runs the shim as bcli does: password then params on stdin.
func cli(t *testing.T, base []string, pass string, method string, params ...string) (string, int) {
	t.Helper()
	args := append(append([]string(nil), base...), "-stdin", method)
	in := pass + "\n" + strings.Join(params, "\n")
	if len(params) > 0 {
		in += "\n"
	}
	var out bytes.Buffer
	code := Run(args, strings.NewReader(in), &out, &out)
	return strings.TrimSpace(out.String()), code
}

// TestAgainstBtcd runs every call CLN's bcli makes against a real btcd,
// with the exit codes bcli reads.
func TestAgainstBtcd(t *testing.T) {
	base, pass := realBtcd(t)
	// -rpcwait: btcd is still starting; bcli's first call waits for it.
	var out bytes.Buffer
	wait := append(append([]string(nil), base...), "-rpcwait", "-rpcwaittimeout=30", "getnetworkinfo")
	if code := Run(wait, strings.NewReader(pass+"\n"), &out, &out); code != 0 {
		t.Fatalf("getnetworkinfo with -rpcwait: exit %d: %s", code, out.String())
	}
	var ni struct {
		Version    int  `json:"version"`
		LocalRelay bool `json:"localrelay"`
	}
	if err := json.Unmarshal(out.Bytes(), &ni); err != nil || ni.Version < 220000 || !ni.LocalRelay {
		t.Fatalf("getnetworkinfo: %v %s", err, out.String())
	}
	if got, code := cli(t, base, pass, "generate", "101"); code != 32601 {
		t.Errorf("a method bitcoin-cli's bcli never calls: exit %d %s", code, got)
	}

	bci, code := cli(t, base, pass, "getblockchaininfo")
	var info struct {
		Chain  string `json:"chain"`
		Blocks int    `json:"blocks"`
		IBD    *bool  `json:"initialblockdownload"`
	}
	if err := json.Unmarshal([]byte(bci), &info); code != 0 || err != nil || info.Chain != "regtest" || info.IBD == nil || *info.IBD {
		t.Fatalf("getblockchaininfo: exit %d %v %s", code, err, bci)
	}
	hash, code := cli(t, base, pass, "getblockhash", "0")
	if code != 0 || len(hash) != 64 {
		t.Fatalf("getblockhash 0: exit %d %q", code, hash)
	}
	if out, code := cli(t, base, pass, "getblockhash", "5000"); code != 8 || !strings.Contains(out, "error code: -8") {
		t.Errorf("getblockhash past the tip: exit %d %q, want bitcoind's 8", code, out)
	}
	raw, code := cli(t, base, pass, "getblock", hash, "0")
	if code != 0 || !strings.HasPrefix(raw, "01000000") {
		t.Errorf("getblock HASH 0: exit %d %.40q", code, raw)
	}
	fee, code := cli(t, base, pass, "estimatesmartfee", "6", "ECONOMICAL")
	if code != 0 || !strings.Contains(fee, `"feerate": `+FeeRateBTCPerKB) {
		t.Errorf("estimatesmartfee: exit %d %s", code, fee)
	}
	mp, code := cli(t, base, pass, "getmempoolinfo")
	if code != 0 || !strings.Contains(mp, `"mempoolminfee": 0.00001000`) || !strings.Contains(mp, `"minrelaytxfee": 0.00001000`) {
		t.Errorf("getmempoolinfo: exit %d %s", code, mp)
	}
	// The genesis coinbase is not in btcd's UTXO set; an unknown txid
	// answers nothing (exit 0), as bitcoind's null.
	if out, code := cli(t, base, pass, "gettxout", strings.Repeat("ab", 32), "0"); code != 0 || out != "" {
		t.Errorf("gettxout of an unknown tx: exit %d %q", code, out)
	}
	if out, code := cli(t, base, pass, "sendrawtransaction", "00", "0"); code == 0 || !strings.Contains(out, "error code: -22") {
		t.Errorf("sendrawtransaction of garbage: exit %d %q", code, out)
	}
	if out, code := cli(t, base, pass, "getpeerinfo"); code != 0 || out != "[]" {
		t.Errorf("getpeerinfo: exit %d %q", code, out)
	}
	// Wrong password: bitcoin-cli's exit 1.
	if out, code := cli(t, base, "wrong", "getblockcount"); code != 1 {
		t.Errorf("wrong password: exit %d %q", code, out)
	}
	// Nothing listening: exit 1 at once without -rpcwait.
	down := append([]string(nil), base...)
	down[3] = fmt.Sprintf("-rpcport=%d", freePort(t))
	t0 := time.Now()
	if out, code := cli(t, down, pass, "getblockcount"); code != 1 || time.Since(t0) > 5*time.Second {
		t.Errorf("btcd not listening: exit %d after %v %q", code, time.Since(t0), out)
	}
}

// TestSendAndSpentAgainstBtcd: the answers bcli reads when it broadcasts
// and watches outputs, on a real btcd. A transaction sent again while in
// the mempool prints its txid (exit 0), as bitcoind's does; one that
// conflicts with it is refused with bitcoind's exit code; an output spent
// in a block reads as nothing (bitcoind's null); a transaction already in
// a block is refused with bitcoind's "already in chain" (27).
func TestSendAndSpentAgainstBtcd(t *testing.T) {
	base, pass, m := realBtcdMiningTo(t)
	var out bytes.Buffer
	wait := append(append([]string(nil), base...), "-rpcwait", "-rpcwaittimeout=30", "getblockcount")
	if code := Run(wait, strings.NewReader(pass+"\n"), &out, &out); code != 0 {
		t.Fatalf("getblockcount with -rpcwait: exit %d: %s", code, out.String())
	}
	c, err := btcd.Dial(m.host, m.cert, "u", pass)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	hashes, err := c.Mine(ctx, 101) // regtest's coinbase maturity is 100
	if err != nil {
		t.Fatal(err)
	}
	blk, err := c.Block(ctx, hashes[0])
	if err != nil {
		t.Fatal(err)
	}
	coinbase := blk.Transactions[0]
	spend := func(fee int64) *wire.MsgTx {
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: coinbase.TxHash(), Index: 0}, nil, nil))
		tx.AddTxOut(wire.NewTxOut(coinbase.TxOut[0].Value-fee, coinbase.TxOut[0].PkScript))
		sig, err := txscript.SignatureScript(tx, 0, coinbase.TxOut[0].PkScript, txscript.SigHashAll, m.key, true)
		if err != nil {
			t.Fatal(err)
		}
		tx.TxIn[0].SignatureScript = sig
		return tx
	}
	hexOf := func(tx *wire.MsgTx) string {
		var b bytes.Buffer
		if err := tx.Serialize(&b); err != nil {
			t.Fatal(err)
		}
		return hex.EncodeToString(b.Bytes())
	}
	a, conflict := spend(100_000), spend(200_000)
	cbOut := coinbase.TxHash().String()
	if out, code := cli(t, base, pass, "gettxout", cbOut, "0"); code != 0 || !strings.Contains(out, `"value": 50.00000000`) {
		t.Fatalf("gettxout of the unspent coinbase: exit %d %q", code, out)
	}
	if out, code := cli(t, base, pass, "sendrawtransaction", hexOf(a), "0"); code != 0 || out != a.TxHash().String() {
		t.Fatalf("sendrawtransaction: exit %d %q, want %s", code, out, a.TxHash())
	}
	if out, code := cli(t, base, pass, "sendrawtransaction", hexOf(a), "0"); code != 0 || out != a.TxHash().String() {
		t.Errorf("sendrawtransaction of a transaction in the mempool: exit %d %q, want its txid %s", code, out, a.TxHash())
	}
	if out, code := cli(t, base, pass, "sendrawtransaction", hexOf(conflict), "0"); code != 26 || !strings.Contains(out, "error code: -26") {
		t.Errorf("sendrawtransaction of a mempool conflict: exit %d %q, want bitcoind's 26 (verify rejected)", code, out)
	}
	// bcli asks with include_mempool (the shim always does): an output
	// spent by a mempool transaction is gone, as in bitcoind.
	if out, code := cli(t, base, pass, "gettxout", cbOut, "0"); code != 0 || out != "" {
		t.Errorf("gettxout of an output spent in the mempool: exit %d %q, want nothing (bitcoind's null)", code, out)
	}
	if _, err := c.Mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if out, code := cli(t, base, pass, "gettxout", cbOut, "0"); code != 0 || out != "" {
		t.Errorf("gettxout of an output spent in a block: exit %d %q, want nothing (bitcoind's null)", code, out)
	}
	if out, code := cli(t, base, pass, "sendrawtransaction", hexOf(a), "0"); code != 27 || !strings.Contains(out, "error code: -27") {
		t.Errorf("sendrawtransaction of a transaction in a block: exit %d %q, want bitcoind's 27 (already in chain)", code, out)
	}
}
