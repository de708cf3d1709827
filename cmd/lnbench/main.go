// Command lnbench benchmarks Lightning nodes on a private chain.
package main

import (
	"os"
	"path/filepath"

	"github.com/lnbench/lnbench/cli"
)

func main() {
	args := os.Args[1:]
	// Reached as bitcoin-cli (a symlink in a CLN node's image or bin dir),
	// it is the bitcoin-cli shim.
	if filepath.Base(os.Args[0]) == "bitcoin-cli" {
		args = append([]string{"bitcoin-cli"}, args...)
	}
	os.Exit(cli.Main(os.Stdout, os.Stderr, args))
}
