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
)

func downCmd(stdout, stderr io.Writer) *cobra.Command {
	var all bool
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
			r, err := compose.Down(cmd.Context(), id)
			// `lnbench up` leaves its node data dirs here; remove them too.
			if id != "" && !strings.ContainsAny(id, `/\`) && id != "." && id != ".." {
				os.RemoveAll(filepath.Join(os.TempDir(), "lnbench", id))
			}
			what := "run " + id
			if all {
				what = "every run"
			}
			fmt.Fprintf(stdout, "%s: removed %s\n", what, r)
			return err
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "remove what every lnbench run left (any "+backend.Label+" value)")
	return cmd
}
