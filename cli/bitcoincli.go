package cli

import (
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/chain/bitcoincli"
	"github.com/lnbench/lnbench/node/cln/routelog"
)

// exitCode carries a command's own exit status (bitcoin-cli's codes are
// part of its interface: CLN's bcli plugin reads them).
type exitCode int

func (e exitCode) Error() string { return "exit status" }

// Args are the command's arguments for a process started with argv. Reached
// under another name (a symlink in a CLN node's bin dir, or a bind mount in
// its container), lnbench is a tool of lightningd's: as bitcoin-cli the
// shim over btcd, as routelog.PluginName the route log plugin.
func Args(argv []string) []string {
	switch filepath.Base(argv[0]) {
	case "bitcoin-cli":
		return append([]string{"bitcoin-cli"}, argv[1:]...)
	case routelog.PluginName:
		return []string{"cln-plugin"}
	}
	return argv[1:]
}

// ReachedAsTool tells whether argv[0] names one of those tools (a test
// binary that the local backend gave CLN nodes must then be the tool).
func ReachedAsTool(argv0 string) bool {
	b := filepath.Base(argv0)
	return b == "bitcoin-cli" || b == routelog.PluginName
}

// clnPluginCmd is the route log plugin lightningd runs (--plugin names the
// lnbench binary under routelog.PluginName, see main).
func clnPluginCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:    "cln-plugin",
		Short:  "Core Lightning plugin: logs each payment part's route for the harness",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return routelog.Serve(os.Stdin, stdout)
		},
	}
}

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
