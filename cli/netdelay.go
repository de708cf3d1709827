package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/netdelay"
)

// netdelayCmd runs in the compose backend's delay helper, in an actor's
// network namespace, when the kernel has no netem: it holds the packets an
// iptables NFQUEUE rule sends it for the delay (± jitter).
func netdelayCmd(stderr io.Writer) *cobra.Command {
	var queue uint16
	var s netdelay.Schedule
	cmd := &cobra.Command{
		Use:    "netdelay --queue N --delay 50ms [--jitter 5ms]",
		Short:  "Delay the packets of an NFQUEUE (the compose backend's delay helper without netem)",
		Args:   cobra.NoArgs,
		Hidden: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return netdelay.Run(cmd.Context(), queue, &s, stderr)
		},
	}
	cmd.Flags().Uint16Var(&queue, "queue", 0, "NFQUEUE number the iptables rule sends packets to")
	cmd.Flags().DurationVar(&s.Delay, "delay", 0, "how long each packet is held")
	cmd.Flags().DurationVar(&s.Jitter, "jitter", 0, "uniform variation of the delay (± this); packets keep their order")
	return cmd
}
