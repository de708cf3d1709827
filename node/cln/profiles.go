package cln

import (
	"fmt"

	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/nodespec"
)

// TunedFlags lift CLN's limit of 30 HTLCs in flight per channel (each side
// accepts at most that many from its peer) to the protocol's 483, LND's
// default: with its own 30, a closed loop of 40 or more workers on one
// channel queues on the limit rather than on the node.
var TunedFlags = []string{"--max-concurrent-htlcs=483"}

// Profile resolves a config profile and a database: sqlite3 (CLN's
// default, whatever LND variant the scenario names) or postgres (a
// PostgreSQL server beside the chain); `default` is CLN's own settings, `tuned` (CLN's default
// profile in a scenario, NodeDriver) adds TunedFlags. The harness's needs (HarnessFlags)
// stay outside profiles.
func Profile(profile, db, version string) (node.Profile, error) {
	p := node.Profile{DBBackend: "sqlite3"}
	switch db {
	case "", nodespec.DBBbolt, nodespec.DBSqlite:
	case nodespec.DBPostgres:
		p.DBBackend = nodespec.DBPostgres
	default:
		return node.Profile{}, fmt.Errorf("db %q: CLN nodes run on sqlite3 (their default) or postgres", db)
	}
	switch profile {
	case nodespec.ProfileDefault:
		return p, nil
	case "", nodespec.ProfileTuned:
		p.Flags = TunedFlags
		return p, nil
	}
	return node.Profile{}, fmt.Errorf("profile %q: CLN nodes have %q (CLN's own settings) and %q (%v)", profile, nodespec.ProfileDefault, nodespec.ProfileTuned, TunedFlags)
}
