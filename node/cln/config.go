// Package cln drives Core Lightning nodes: lightningd's command line (a
// pure function of Config) and a node.Node over lightningd's JSON-RPC.
package cln

import (
	"fmt"
	"path/filepath"
)

// Config is everything that decides a lightningd command line. Backends
// fill the addresses and paths as the process will see them.
type Config struct {
	Alias        string
	LightningDir string
	// P2PListen is where lightningd listens for peers (host:port).
	P2PListen string
	// BitcoinCLI is the bitcoin-cli shim (lnbench bitcoin-cli) and
	// BitcoinDataDir the folder with btcd's rpc.cert, passed to it as -datadir.
	BitcoinCLI     string
	BitcoinDataDir string
	BtcdRPCHost    string // host
	BtcdRPCPort    string
	BtcdRPCUser    string
	BtcdRPCPass    string
	LogLevel       string // "" is info
	// Wallet is the node's database when not CLN's default sqlite3 file: a
	// postgres://user:pass@host:port/db DSN on the run's PostgreSQL server.
	Wallet string
	// Plugin is lnbench's route log plugin (node/cln/routelog) as the
	// process sees it; "" runs none.
	Plugin string
	// Extra flags appended verbatim: the profile's, then the scenario's node.flags.
	Extra []string
}

// Network is the chain CLN nodes run on: CLN has no simnet, so networks
// with a CLN node run on btcd regtest.
const Network = "regtest"

// HarnessFlags are the flags every CLN node of a private test network
// needs, whatever its profile: regtest, one confirmation for funding,
// gossip broadcast every second instead of every 60 s (routes through
// other nodes appear in seconds; --dev-fast-gossip needs --developer),
// the chain polled every PollSeconds instead of every 30 s, and every RPC
// command allowed.
var HarnessFlags = []string{
	"--network=" + Network,
	"--developer",
	"--dev-fast-gossip",
	fmt.Sprintf("--dev-bitcoind-poll=%d", PollSeconds),
	"--funding-confirms=1",
	"--database-upgrade=true",
}

// PollSeconds is how often lightningd asks the chain for a new block, six
// bitcoin-cli processes a poll (bcli). A built network waits on two polls,
// for its funds and for its channels: a minute at CLN's default of 30 s.
// CLN's own test harness polls every second (pyln-testing); 5 s keeps the
// polls' CPU per node at what 30 s cost before the standalone shim and the
// P-256 certificate made a call a sixth as dear (docs/cln.md).
const PollSeconds = 5

// Flags are the harness's flags for the report (CLN has one database
// here, sqlite3, whatever the scenario's db setting).
func Flags(dbBackend string) []string { return append([]string(nil), HarnessFlags...) }

// SocketPath is lightningd's JSON-RPC socket under a lightning dir.
func SocketPath(lightningDir string) string {
	return filepath.Join(lightningDir, Network, "lightning-rpc")
}

// LogPath is where Args makes lightningd log.
func LogPath(lightningDir string) string { return filepath.Join(lightningDir, "lightningd.log") }

// Args renders the lightningd command line. It is pure: the same Config
// always gives the same arguments, which the artifacts record (btcd's RPC
// password is per run, as for LND; lightningd hands it to bitcoin-cli on
// stdin, -stdinrpcpass).
func (c Config) Args() []string {
	args := append([]string(nil), HarnessFlags...)
	add := func(flag, v string) {
		if v != "" {
			args = append(args, fmt.Sprintf("--%s=%s", flag, v))
		}
	}
	add("lightning-dir", c.LightningDir)
	add("alias", c.Alias)
	add("addr", c.P2PListen)
	add("bitcoin-cli", c.BitcoinCLI)
	add("bitcoin-datadir", c.BitcoinDataDir)
	add("bitcoin-rpcconnect", c.BtcdRPCHost)
	add("bitcoin-rpcport", c.BtcdRPCPort)
	add("bitcoin-rpcuser", c.BtcdRPCUser)
	add("bitcoin-rpcpassword", c.BtcdRPCPass)
	add("wallet", c.Wallet)
	add("plugin", c.Plugin)
	add("log-file", LogPath(c.LightningDir))
	level := c.LogLevel
	if level == "" {
		level = "info"
	}
	add("log-level", level)
	return append(args, c.Extra...)
}
