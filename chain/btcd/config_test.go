package btcd

import (
	"slices"
	"testing"
)

func TestArgs(t *testing.T) {
	got := Config{DataDir: "/d", RPCListen: "127.0.0.1:1", RPCUser: "u", RPCPass: "p", MiningAddr: "SXXX"}.Args()
	for _, w := range []string{"--simnet", "--txindex", "--datadir=/d", "--rpclisten=127.0.0.1:1", "--rpcuser=u", "--rpcpass=p", "--miningaddr=SXXX"} {
		if !slices.Contains(got, w) {
			t.Errorf("missing %s in %v", w, got)
		}
	}
	for _, g := range got {
		if g == "--listen=" || g == "--logdir=" {
			t.Errorf("empty flag rendered: %s", g)
		}
	}
}

func TestRPCLimitsGrowWithNodes(t *testing.T) {
	small := Config{}.Args()
	big := Config{Clients: 100}.Args()
	for _, w := range []string{"--rpcmaxwebsockets=50", "--rpcmaxclients=10"} {
		if !slices.Contains(small, w) {
			t.Errorf("no nodes: missing %s in %v", w, small)
		}
	}
	for _, w := range []string{"--rpcmaxwebsockets=850", "--rpcmaxclients=410"} {
		if !slices.Contains(big, w) {
			t.Errorf("100 nodes: missing %s in %v", w, big)
		}
	}
}

func TestFaucetAddressIsSimnet(t *testing.T) {
	f, err := NewFaucet(Simnet)
	if err != nil {
		t.Fatal(err)
	}
	if a := f.Address(); a == "" || a[0] != 'S' {
		t.Fatalf("faucet address %q is not a simnet P2PKH address", a)
	}
	if _, err := payTo(f.Address(), Simnet); err != nil {
		t.Fatal(err)
	}
	if _, err := payTo("bc1qnotsimnet", Simnet); err == nil {
		t.Fatal("a mainnet address was accepted")
	}
}

func TestLogPath(t *testing.T) {
	for _, c := range []struct {
		dir  string
		n    Network
		want string
	}{
		{"/data", "", "/data/logs/simnet/btcd.log"},
		{"", Regtest, "logs/regtest/btcd.log"},
	} {
		if got := LogPath(c.dir, c.n); got != c.want {
			t.Errorf("LogPath(%q, %q) = %q, want %q", c.dir, c.n, got, c.want)
		}
	}
}
