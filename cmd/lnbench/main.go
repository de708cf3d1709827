// Command lnbench benchmarks Lightning nodes on a private chain.
package main

import (
	"os"

	"github.com/lnbench/lnbench/cli"
)

func main() {
	os.Exit(cli.Main(os.Stdout, os.Stderr, cli.Args(os.Args)))
}
