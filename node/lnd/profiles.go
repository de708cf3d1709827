package lnd

import (
	"fmt"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/lnbench/lnbench/node"
)

// ProfileFlags are the flags of each speed profile, added to SimnetFlags.
var ProfileFlags = map[string][]string{
	// LND's own defaults: the scenario default, the node as users run it
	// (measured the same as tuned: docs/measured.md, Config profiles).
	"default": nil,
	// What the harness added for speed before profiles existed (the
	// gossip pacing now in SimnetFlags), from LND's lntest/node/config.go:
	// the default until 2026-11-26, kept so earlier figures can be rerun.
	"tuned": {
		"--db.batch-commit-interval=10ms",
		"--caches.rpc-graph-cache-duration=100ms",
	},
	// The bottlepay benchmark's settings: commitments batched for up to
	// 100 ms or 300 updates (config.go: channel-commit-interval,
	// channel-commit-batch-size).
	"bottlepay": {
		"--channel-commit-interval=100ms",
		"--channel-commit-batch-size=300",
	},
}

// nativeSQLSince is the first release with native SQL tables (invoices).
const nativeSQLSince = "v0.18.0"

// Profile resolves a speed profile and a database variant (bbolt, sqlite,
// sqlite-native, postgres, postgres-native) for a version ("src" for a source tree, which is assumed
// to support everything).
func Profile(profile, db, version string) (node.Profile, error) {
	flags, ok := ProfileFlags[profile]
	if !ok {
		return node.Profile{}, fmt.Errorf("profile %q: use default, tuned or bottlepay", profile)
	}
	out := node.Profile{Flags: append([]string(nil), flags...)}
	switch db {
	case "bbolt", "sqlite", "postgres":
		out.DBBackend = db
	case "sqlite-native", "postgres-native":
		backend := strings.TrimSuffix(db, "-native")
		if semver.IsValid(version) && semver.Compare(version, nativeSQLSince) < 0 {
			return node.Profile{}, fmt.Errorf("db %s: lnd %s has no native SQL tables (since %s); use db=%s", db, version, nativeSQLSince, backend)
		}
		out.DBBackend = backend
		out.Flags = append(out.Flags, "--db.use-native-sql")
	default:
		return node.Profile{}, fmt.Errorf("db %q: use bbolt, sqlite, sqlite-native, postgres or postgres-native", db)
	}
	return out, nil
}

// Footprints are the memory footprints. "small" keeps every flag that
// shapes a payment (graph cache, pathfinding, mission control, commitment
// batching) and trims what a private simnet does not need:
//   - GOGC=50: the Go heap may grow to 1.5× the live heap instead of 2×
//     (more frequent GC, the same code path);
//   - --blockcachesize=1 MiB instead of 20 MiB (blocks fetched from btcd
//     for the chain notifiers; simnet blocks are a few hundred bytes);
//   - --caches.reject-cache-size and --caches.channel-cache-size at a
//     tenth (gossip's caches of rejected and known channel edges, sized for
//     mainnet's tens of thousands of channels).
var Footprints = map[string]node.Footprint{
	"default": {},
	"small": {
		Flags: []string{"--blockcachesize=1048576", "--caches.reject-cache-size=5000", "--caches.channel-cache-size=2000"},
		Env:   []string{"GOGC=50"},
	},
}

// Footprint resolves a memory footprint.
func Footprint(name string) (node.Footprint, error) {
	f, ok := Footprints[name]
	if !ok {
		return node.Footprint{}, fmt.Errorf("footprint %q: use default or small", name)
	}
	return node.Footprint{Flags: append([]string(nil), f.Flags...), Env: append([]string(nil), f.Env...)}, nil
}
