package cli

import (
	"fmt"

	"github.com/lnbench/lnbench/scenario"
)

// clnBackends are the backends that run Core Lightning nodes.
var clnBackends = map[string]bool{"local": true, "compose": true}

// refuseCLNBackend refuses a run with a CLN node on a backend that cannot
// start one, before anything is built.
func refuseCLNBackend(s scenario.Scenario, backendName string) error {
	if clnBackends[backendName] {
		return nil
	}
	specs, err := s.AllSpecs()
	if err != nil {
		return err
	}
	for _, sp := range specs {
		if sp.Implementation() == "cln" {
			return fmt.Errorf("node spec %s: Core Lightning nodes run on the local and compose backends, not yet on swarm; add --backend compose", sp.Label)
		}
	}
	return nil
}
