package cli

import (
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/chain/bitcoincli"
)

// exitCode carries a command's own exit status (bitcoin-cli's codes are
// part of its interface: CLN's bcli plugin reads them).
type exitCode int

func (e exitCode) Error() string { return "exit status" }

// bitcoinCLICmd is the bitcoin-cli shim CLN's --bitcoin-cli points at (a
// symlink or wrapper named bitcoin-cli also reaches it, see main).
func bitcoinCLICmd(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:                "bitcoin-cli [options] <command> [params]",
		Short:              "bitcoin-cli over btcd's RPC, for Core Lightning's bcli plugin",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := bitcoincli.Run(args, os.Stdin, stdout, stderr); code != 0 {
				return exitCode(code)
			}
			return nil
		},
	}
}
