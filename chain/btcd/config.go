// Package btcd runs the simnet chain: btcd's command line as a pure function
// of Config, an RPC client for mining, and a faucet that funds wallets.
package btcd

import "fmt"

// Config is everything that decides a btcd command line.
type Config struct {
	DataDir    string
	LogDir     string
	RPCListen  string
	P2PListen  string
	RPCUser    string
	RPCPass    string
	RPCCert    string
	RPCKey     string
	MiningAddr string
	Extra      []string
}

// BenchFlags make a private simnet chain responsive; they follow LND's own
// test harness (lntest/btcd.go): relay transactions every 100 ms instead of
// btcd's 10 s, never ban or drop a slow peer, and allow 50 websockets
// (default 25) since closed ones are not freed at once.
var BenchFlags = []string{
	"--simnet",
	"--txindex",
	"--rejectnonstd",
	"--trickleinterval=100ms",
	"--nobanning",
	"--nostalldetect",
	"--rpcmaxwebsockets=50",
	"--nodnsseed",
	"--debuglevel=info",
}

// Args renders the btcd command line; pure, recorded in the artifacts.
func (c Config) Args() []string {
	args := append([]string(nil), BenchFlags...)
	add := func(flag, v string) {
		if v != "" {
			args = append(args, fmt.Sprintf("--%s=%s", flag, v))
		}
	}
	add("datadir", c.DataDir)
	add("logdir", c.LogDir)
	add("rpclisten", c.RPCListen)
	add("listen", c.P2PListen)
	add("rpcuser", c.RPCUser)
	add("rpcpass", c.RPCPass)
	add("rpccert", c.RPCCert)
	add("rpckey", c.RPCKey)
	add("miningaddr", c.MiningAddr)
	return append(args, c.Extra...)
}
