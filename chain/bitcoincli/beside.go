package bitcoincli

import (
	"os"
	"path/filepath"
)

// StandaloneName is the file name of the standalone shim
// (cmd/lnbench-bitcoin-cli), built beside the lnbench binary.
const StandaloneName = "lnbench-bitcoin-cli"

// Beside is the bitcoin-cli for CLN nodes run by the lnbench binary exe:
// the standalone shim in exe's folder when it is there, else exe itself
// (reached as bitcoin-cli, lnbench is the shim too). bcli starts one
// process per call, six each time lightningd polls the chain, and the
// standalone one skips lnbench's package init, most of a call's CPU
// (docs/cln.md).
func Beside(exe string) string {
	shim := filepath.Join(filepath.Dir(exe), StandaloneName)
	if fi, err := os.Stat(shim); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return shim
	}
	return exe
}
