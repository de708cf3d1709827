// Package drivers assembles the node drivers lnbench ships, one per
// implementation. Adding an implementation is adding its entry here.
package drivers

import (
	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/node/cln"
	"github.com/lnbench/lnbench/node/lnd"
)

// Builtin returns a fresh registry of the shipped drivers; callers may add
// to their copy (tests inject fakes) without affecting anyone else.
func Builtin() node.Drivers {
	return node.Drivers{"lnd": lnd.NodeDriver(), "cln": cln.NodeDriver()}
}
