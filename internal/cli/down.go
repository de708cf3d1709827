package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/backend/compose"
	"github.com/lnbench/lnbench/backend/swarm"
)

func downCmd(stdout, stderr io.Writer) *cobra.Command {
	var all bool
	var backendName, enginesFile string
	cmd := &cobra.Command{
		Use:   "down [run id | --all]",
		Short: "Remove the containers, networks and volumes of a compose run (label " + backend.Label + ")",
		Long: "Remove exactly the containers, networks and volumes labelled " + backend.Label + "=<run id>,\n" +
			"or with any " + backend.Label + " value with --all. Images and unlabelled objects are left alone.\n" +
			"The run id is the artifacts folder's name, e.g. 20260101T120000Z-AlicePaysBob.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) == 1) {
				return errors.New("give a run id or --all (not both)")
			}
			id := ""
			if len(args) == 1 {
				if args[0] == "" {
					return errors.New("the run id is empty; give one or --all")
				}
				id = args[0]
			}
			what := "run " + id
			if all {
				what = "every run"
			}
			switch backendName {
			case "swarm":
				msg, err := swarmDown(cmd.Context(), enginesFile, id)
				if msg != "" {
					fmt.Fprintf(stdout, "%s: %s\n", what, msg)
				}
				if err != nil {
					return fmt.Errorf("--backend swarm: %v", err)
				}
				return nil
			case "compose":
			default:
				return fmt.Errorf("--backend %q: use compose (this engine) or swarm (every engine of the engines file)", backendName)
			}
			r, err := compose.Down(cmd.Context(), id)
			// `lnbench up` leaves its node data dirs here; remove them too.
			if id != "" && !strings.ContainsAny(id, `/\`) && id != "." && id != ".." {
				os.RemoveAll(filepath.Join(os.TempDir(), "lnbench", id))
			}
			fmt.Fprintf(stdout, "%s: removed %s\n", what, r)
			return err
		},
	}
	cmd.Flags().StringVar(&backendName, "backend", "compose", "compose (this engine) or swarm (the stack, then every engine of the swarm)")
	cmd.Flags().StringVar(&enginesFile, "swarm-engines", "", "swarm: the engines file (default $"+swarm.EnginesEnv+", else the testbed's)")
	cmd.Flags().BoolVar(&all, "all", false, "remove what every lnbench run left (any "+backend.Label+" value)")
	return cmd
}
