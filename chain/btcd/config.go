// Package btcd runs the private chain (simnet, or regtest when a Core
// Lightning node is in the network): btcd's command line as a pure
// function of Config, an RPC client for mining, and a faucet that funds
// wallets.
package btcd

import (
	"fmt"
	"path"

	"github.com/btcsuite/btcd/chaincfg"
)

// Network is the private chain's network.
type Network string

const (
	// Simnet is the default: LND runs on it, and it needs fewer blocks.
	Simnet Network = "simnet"
	// Regtest carries networks with Core Lightning (it has no simnet);
	// LND runs there too, so one chain carries mixed networks.
	Regtest Network = "regtest"
)

// Or returns n, or Simnet when n is unset.
func (n Network) Or() Network {
	if n == "" {
		return Simnet
	}
	return n
}

// ErasedAtStart says whether btcd removes the network's block database
// when it starts (it does for regtest): a copy of its data does not
// restore that chain, a replay of its blocks does.
func (n Network) ErasedAtStart() bool { return n.Or() == Regtest }

// LogPath is btcd's log file under its data dir, relative when dataDir
// is "" (a container's path or a bind mount's).
func LogPath(dataDir string, n Network) string {
	return path.Join(dataDir, "logs", string(n.Or()), "btcd.log")
}

// Params are the chain parameters of the network.
func (n Network) Params() *chaincfg.Params {
	if n.Or() == Regtest {
		return &chaincfg.RegressionNetParams
	}
	return &chaincfg.SimNetParams
}

// SegwitHeight is a height past segwit's activation on the network:
// funding transactions are rejected below it. simnet activates at 300;
// regtest's BIP9 deployment locks in at 288 and is active from 432.
func (n Network) SegwitHeight() uint32 {
	if n.Or() == Regtest {
		return 450
	}
	return 400
}

// Config is everything that decides a btcd command line.
type Config struct {
	Network    Network // "" is Simnet
	DataDir    string
	LogDir     string
	RPCListen  string
	P2PListen  string
	RPCUser    string
	RPCPass    string
	RPCCert    string
	RPCKey     string
	MiningAddr string
	// Clients is the number of nodes that will connect: RPC limits grow with it.
	Clients int
	Extra   []string
}

// RPCLimits are btcd's websocket and RPC client limits for n nodes. An LND
// on btcd holds several websockets (wallet, chain notifier, channel
// view), and closed ones are not freed at once. btcd's defaults (25
// websockets, 10 clients) and even LND harness's 50 stop 21 LNDs at "Max
// websocket clients exceeded [50]"; 3 per node stalled 25 LNDs in state
// UNLOCKED (both measured, shared/notes/lnd.md beside the repository). A websocket costs
// btcd little, so 8 per node plus 50. HTTP clients: CLN's bcli plugin runs
// up to 4 bitcoin-cli at once per node, so 4 per node plus 10.
func RPCLimits(n int) (websockets, clients int) {
	return 8*n + 50, max(10, 4*n+10)
}

// BenchFlags (after the network's flag) make a private chain responsive; they follow LND's own
// test harness (lntest/btcd.go): relay transactions every 100 ms instead of
// btcd's 10 s, never ban or drop a slow peer. Args adds the RPC limits.
var BenchFlags = []string{
	"--txindex",
	"--rejectnonstd",
	"--trickleinterval=100ms",
	"--nobanning",
	"--nostalldetect",
	"--nodnsseed",
	"--debuglevel=info",
}

// Args renders the btcd command line; pure, recorded in the artifacts.
func (c Config) Args() []string {
	websockets, clients := RPCLimits(c.Clients)
	args := []string{"--" + string(c.Network.Or())}
	for _, f := range BenchFlags {
		args = append(args, f)
		if f == "--nostalldetect" {
			args = append(args, fmt.Sprintf("--rpcmaxwebsockets=%d", websockets), fmt.Sprintf("--rpcmaxclients=%d", clients))
		}
	}
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
