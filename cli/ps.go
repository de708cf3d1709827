package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/backend"
)

func psCmd(stdout, stderr io.Writer) *cobra.Command {
	return psCmdWith(stdout, localEngine)
}

func psCmdWith(stdout io.Writer, engineOf func(context.Context) runEngine) *cobra.Command {
	return &cobra.Command{
		Use:   "ps",
		Short: "List the runs on this machine: age, whether the harness is alive, what they left",
		Long: "List every run with a work folder on this machine or Docker objects labelled " + backend.Label + ":\n" +
			"its age, whether its harness process still runs, and how many containers, networks and\n" +
			"volumes carry its label. `lnbench down <id>` removes one run's leftovers.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			engine := engineOf(cmd.Context())
			known, err := knownRuns(cmd.Context(), engine)
			if err != nil {
				return err
			}
			if len(known) == 0 {
				fmt.Fprintln(stdout, "no runs on this machine")
				return nil
			}
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "RUN\tAGE\tHARNESS\tDOCKER OBJECTS\tWORK FOLDER")
			for _, r := range known {
				age := "?"
				if !r.Started.IsZero() {
					age = time.Since(r.Started).Round(time.Second).String()
				}
				harness := "exited"
				switch {
				case r.Alive:
					harness = fmt.Sprintf("alive (pid %d)", r.PID)
				case !r.HasFolders():
					harness = "-"
				}
				objects := "-"
				if engine != nil {
					objects = fmt.Sprint(r.Objects)
				}
				dir := strings.Join(r.Folders(), ", ")
				if dir == "" {
					dir = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, age, harness, objects, dir)
			}
			return tw.Flush()
		},
	}
}
