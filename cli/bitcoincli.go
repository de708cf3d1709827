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
// shim over btcd, as routelog.PluginName the route log plugin. lightningd
// starts a plugin by its resolved path, so through a symlink the plugin is
// also told by lightningd's mark on its plugins' environment
// (LIGHTNINGD_PLUGIN=1) and the only arguments lightningd gives plugins
// (--developer, --dev-debug-self); bcli's bitcoin-cli inherits that mark
// but keeps its name.
func Args(argv []string) []string {
	switch toolOf(argv) {
	case "bitcoin-cli":
		return append([]string{"bitcoin-cli"}, argv[1:]...)
	case "cln-plugin":
		return []string{"cln-plugin"}
	}
	return argv[1:]
}

// ReachedAsTool tells whether the process is one of those tools (a test
// binary that the local backend gave CLN nodes must then be the tool).
func ReachedAsTool(argv []string) bool { return toolOf(argv) != "" }

// toolOf names the tool argv starts, "" for lnbench's own commands.
func toolOf(argv []string) string {
	switch {
	case filepath.Base(argv[0]) == "bitcoin-cli":
		return "bitcoin-cli"
	case filepath.Base(argv[0]) == routelog.PluginName, os.Getenv("LIGHTNINGD_PLUGIN") == "1" && onlyPluginFlags(argv[1:]):
		return "cln-plugin"
	}
	return ""
}

// onlyPluginFlags: the arguments are none or those lightningd gives every
// plugin.
func onlyPluginFlags(args []string) bool {
	for _, a := range args {
		if a != "--developer" && a != "--dev-debug-self" {
			return false
		}
	}
	return true
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
			return routelog.Serve(routelog.Stdin(), stdout)
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
