package cln

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestArgs(t *testing.T) {
	c := Config{Alias: "bob", LightningDir: "/data", P2PListen: "0.0.0.0:9735", BitcoinCLI: "/usr/local/bin/bitcoin-cli",
		BitcoinDataDir: "/chain", BtcdRPCHost: "btcd", BtcdRPCPort: "18334", BtcdRPCUser: "u", BtcdRPCPass: "p", Extra: []string{"--fee-base=0"}}
	got := strings.Join(c.Args(), " ")
	want := "--network=regtest --developer --dev-fast-gossip --dev-bitcoind-poll=5 --funding-confirms=1 --database-upgrade=true --lightning-dir=/data --alias=bob " +
		"--addr=0.0.0.0:9735 --bitcoin-cli=/usr/local/bin/bitcoin-cli --bitcoin-datadir=/chain --bitcoin-rpcconnect=btcd --bitcoin-rpcport=18334 " +
		"--bitcoin-rpcuser=u --bitcoin-rpcpassword=p --log-file=/data/lightningd.log --log-level=info --fee-base=0"
	if got != want {
		t.Errorf("args:\n got %s\nwant %s", got, want)
	}
	c.Wallet = "postgres://u:p@127.0.0.1:5432/bob"
	if got := strings.Join(c.Args(), " "); !strings.Contains(got, " --wallet=postgres://u:p@127.0.0.1:5432/bob --log-file=") {
		t.Errorf("postgres wallet: %s", got)
	}
	if SocketPath("/data") != "/data/regtest/lightning-rpc" {
		t.Error(SocketPath("/data"))
	}
}

func TestFailureReasons(t *testing.T) {
	for _, c := range []struct {
		err    error
		reason string
		ok     bool
	}{
		{&RPCError{Code: 205, Message: "Could not find a route"}, "FAILURE_REASON_NO_ROUTE", true},
		{fmt.Errorf("alice: pay: %w", &RPCError{Code: 210, Message: "Ran out of routes to try"}), "FAILURE_REASON_ERROR (CLN 210)", true},
		{&RPCError{Code: 206, Message: "insufficient funds"}, "FAILURE_REASON_INSUFFICIENT_BALANCE", true},
		{&RPCError{Code: -32602, Message: "bad bolt11"}, "", false},
		{errors.New("connection refused"), "", false},
	} {
		r, ok := failureReason(c.err)
		if r != c.reason || ok != c.ok {
			t.Errorf("%v: %q %v, want %q %v", c.err, r, ok, c.reason, c.ok)
		}
	}
}

func TestProfileDatabases(t *testing.T) {
	for db, want := range map[string]string{"": "sqlite3", "bbolt": "sqlite3", "sqlite": "sqlite3", "postgres": "postgres"} {
		if p, err := Profile("tuned", db, "src"); err != nil || p.DBBackend != want {
			t.Errorf("db %q: %+v %v, want %s", db, p, err, want)
		}
	}
	if _, err := Profile("tuned", "sqlite-native", "src"); err == nil || !strings.Contains(err.Error(), "sqlite3 (their default) or postgres") {
		t.Errorf("sqlite-native: %v", err)
	}
}
