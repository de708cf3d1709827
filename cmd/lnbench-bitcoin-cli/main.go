// Command lnbench-bitcoin-cli is the bitcoin-cli that Core Lightning's bcli
// plugin runs against btcd, on its own: bcli starts a process for every
// call (six each time lightningd polls the chain), and the whole lnbench,
// reached as bitcoin-cli, first runs every package's init (lnd's among
// them): 172 ms of CPU a call against this binary's 26 ms (btcd's P-256
// certificate), measured with perf stat on a busy machine (docs/cln.md).
// lnbench uses it when it lies beside the lnbench binary.
package main

import (
	"os"

	"github.com/lnbench/lnbench/chain/bitcoincli"
)

func main() {
	os.Exit(bitcoincli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
