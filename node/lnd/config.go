// Package lnd drives LND nodes: their command line (a pure function of Config)
// and a node.Node implementation over gRPC with TLS and macaroons.
package lnd

import (
	"fmt"
	"sort"
)

// Config is everything that decides an lnd command line. Backends fill the
// addresses and paths as the process will see them (host paths for local
// processes, container paths for compose).
type Config struct {
	// Network is the chain's: "simnet" ("" too) or "regtest" (a network
	// with Core Lightning nodes).
	Network    string
	Alias      string
	LndDir     string
	RPCListen  string // host:port the gRPC server binds
	RESTListen string // empty disables REST
	P2PListen  string
	// TLSExtraDomains are the names peers and the harness use to reach the node.
	TLSExtraDomains []string
	BtcdRPCHost     string
	BtcdRPCUser     string
	BtcdRPCPass     string
	BtcdRPCCert     string
	PprofListen     string // empty disables the pprof endpoint
	DBBackend       string // "bbolt" (default), "sqlite" or "postgres"
	// PostgresDSN is the node's database on the run's PostgreSQL server
	// (DBBackend "postgres"): postgres://user:pass@host:port/db?sslmode=disable.
	PostgresDSN string
	DebugLevel  string // empty means lnd's default (info)
	// Extra flags appended verbatim: the profile's, then the scenario's node.flags.
	Extra []string
}

// SimnetFlags are the flags every node of a private simnet test network
// needs, whatever its profile: chain, no seed backup or bootstrap, quick
// channel confirmations, keysend accepted, and gossip broadcast every
// 50 ms instead of LND's 90 s trickle, so that routes exist seconds after
// the channels open. Gossip pacing acts on channel announcements, which
// no payment of a benchmark waits on.
var SimnetFlags = []string{
	"--bitcoin.simnet",
	"--bitcoin.node=btcd",
	"--noseedbackup",
	"--nobootstrap",
	"--bitcoin.defaultchanconfs=1",
	"--bitcoin.defaultremotedelay=4",
	"--accept-keysend",
	"--trickledelay=50",
	"--gossip.sub-batch-delay=5ms",
}

// HarnessFlags are the flags every node runs with for a database backend,
// as the report shows them: SimnetFlags and the database choice. A
// profile's flags (see Profile) come after.
func HarnessFlags(dbBackend string) []string {
	flags := append([]string(nil), SimnetFlags...)
	if dbBackend != "" {
		flags = append(flags, "--db.backend="+DBBackendFlag(dbBackend))
	}
	return flags
}

// Args renders the lnd command line. It is pure: the same Config always
// gives the same arguments, which the artifacts record for reruns.
func (c Config) Args() []string {
	args := append([]string(nil), SimnetFlags...)
	if c.Network != "" && c.Network != "simnet" {
		args[0] = "--bitcoin." + c.Network
	}
	add := func(flag, v string) {
		if v != "" {
			args = append(args, fmt.Sprintf("--%s=%s", flag, v))
		}
	}
	add("alias", c.Alias)
	add("lnddir", c.LndDir)
	add("rpclisten", c.RPCListen)
	if c.RESTListen == "" {
		args = append(args, "--norest")
	} else {
		add("restlisten", c.RESTListen)
	}
	add("listen", c.P2PListen)
	domains := append([]string(nil), c.TLSExtraDomains...)
	sort.Strings(domains)
	for _, d := range domains {
		add("tlsextradomain", d)
	}
	add("btcd.rpchost", c.BtcdRPCHost)
	add("btcd.rpcuser", c.BtcdRPCUser)
	add("btcd.rpcpass", c.BtcdRPCPass)
	add("btcd.rpccert", c.BtcdRPCCert)
	add("pprof.profile", c.PprofListen)
	add("db.backend", DBBackendFlag(c.DBBackend))
	add("db.postgres.dsn", c.PostgresDSN)
	add("debuglevel", c.DebugLevel)
	return append(args, c.Extra...)
}

// DBBackendFlag maps the scenario's database name to lnd's: lnd calls its
// bbolt backend "bolt".
func DBBackendFlag(name string) string {
	if name == "bbolt" {
		return "bolt"
	}
	return name
}

// MacaroonPath is the admin macaroon's path under an lnd dir, which
// depends on the chain's network.
func MacaroonPath(lndDir, network string) string {
	if network == "" {
		network = "simnet"
	}
	return lndDir + "/data/chain/bitcoin/" + network + "/admin.macaroon"
}

// LogPath is lnd's log file under an lnd dir.
func LogPath(lndDir, network string) string {
	if network == "" {
		network = "simnet"
	}
	return lndDir + "/logs/bitcoin/" + network + "/lnd.log"
}
