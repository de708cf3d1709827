package node

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Endpoint is where a started node's RPC listens and the files that
// authenticate the harness to it, as the backend reports them.
type Endpoint struct {
	RPCHost      string // host:port reachable from the harness
	TLSCertPath  string
	MacaroonPath string
	// Database is where the harness reads the node's own database, when
	// it can and the RPC lacks what the database holds (CLN's commitment
	// numbers): "sqlite:PATH" or a postgres:// URL; "" if not.
	Database string
	// RouteLog is where the harness reads the route of each payment part
	// the node sent (CLN: node/cln/routelog's file); "" if nowhere.
	RouteLog string
}

// Driver is what the harness knows about one implementation: how to reach
// its nodes and which flags it gives every one of them.
type Driver struct {
	// Dial connects to a started node; name is its topology name.
	Dial func(name string, ep Endpoint) (Node, error)
	// Flags are the flags every node of this implementation runs with for
	// the given database backend, as the report shows them (the scenario's
	// own node flags come after).
	Flags func(dbBackend string) []string
	// Profile resolves a speed profile and database variant of a version
	// into the node's database backend and the flags that follow Flags.
	Profile func(profile, db, version string) (Profile, error)
	// DefaultProfile is the profile of a spec whose scenario names none.
	DefaultProfile string
	// Footprint resolves a memory footprint (nodespec.Footprints) into
	// flags after the profile's and environment variables; nil means the
	// implementation has only its default.
	Footprint func(name string) (Footprint, error)
	// BlockWait is how long a node may take to see a mined block (CLN
	// polls its chain backend; LND is told at once): a build
	// waits on it twice, for the funds and for the channels' confirmation.
	// Plan estimates only.
	BlockWait time.Duration
	// RouteLimit, when set, is the most hops a payer with these flags
	// (the profile's and the scenario's, as the node runs with them) pays
	// through, and a one-line reason naming the flag that lifts it; 0: no
	// limit.
	RouteLimit func(flags []string) (hops int, why string)
}

// Footprint is a resolved memory footprint: flags and environment
// variables ("NAME=value") that trim memory without changing what a
// payment does.
type Footprint struct {
	Flags []string
	Env   []string
}

// Profile is a resolved config profile: the database backend the node
// starts with and the profile's flags.
type Profile struct {
	DBBackend string
	Flags     []string
}

// Drivers maps an implementation name, as topologies and scenarios spell
// it, to its driver. The caller builds it (see package drivers) and passes
// it down as a value.
type Drivers map[string]Driver

// Lookup returns the driver of an implementation; the error lists the known ones.
func (d Drivers) Lookup(implementation string) (Driver, error) {
	if drv, ok := d[implementation]; ok && drv.Dial != nil {
		return drv, nil
	}
	known := make([]string, 0, len(d))
	for name := range d {
		known = append(known, name)
	}
	sort.Strings(known)
	return Driver{}, fmt.Errorf("implementation %q has no node driver (known: %s)", implementation, strings.Join(known, ", "))
}
