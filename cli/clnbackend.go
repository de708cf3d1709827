package cli

import (
	"fmt"
	"strings"

	"github.com/lnbench/lnbench/backend/driver"
	"github.com/lnbench/lnbench/scenario"
)

// refuseCLNBackend refuses a run with a CLN node on a backend that cannot
// start one, before anything is built.
func refuseCLNBackend(s scenario.Scenario, be driver.Driver) error {
	if be.Caps().CLN {
		return nil
	}
	specs, err := s.AllSpecs()
	if err != nil {
		return err
	}
	for _, sp := range specs {
		if sp.Implementation() == "cln" {
			return fmt.Errorf("node spec %s: Core Lightning nodes do not run on the %s backend yet; add %s", sp.Label, be.Name(), strings.TrimPrefix(driver.UseOneOf(func(c driver.Caps) bool { return c.CLN }), "use "))
		}
	}
	return nil
}
