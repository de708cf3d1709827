package cli

import (
	"fmt"

	"github.com/lnbench/lnbench/scenario"
)

// refuseCLNBackend refuses a run with a CLN node on a backend that cannot
// start one, before anything is built.
func refuseCLNBackend(s scenario.Scenario, kind backendKind) error {
	if kind.cln {
		return nil
	}
	specs, err := s.AllSpecs()
	if err != nil {
		return err
	}
	for _, sp := range specs {
		if sp.Implementation() == "cln" {
			return fmt.Errorf("node spec %s: Core Lightning nodes do not run on the %s backend yet; add --backend compose or local", sp.Label, kind.name)
		}
	}
	return nil
}
