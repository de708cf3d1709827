package runner

import (
	"fmt"

	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/node/drivers"
	"github.com/lnbench/lnbench/scenario"
)

// CheckRoutes refuses, before anything is built or started, a scenario
// with a payer whose implementation would not pay through as many hops as
// its payee is away (LND's route probability floor): its setup would wait
// minutes on a warm-up payment that never routes (nil ds: the built-in
// drivers). The commands call it with their other refusals.
func CheckRoutes(s scenario.Scenario, ds node.Drivers) error {
	if ds == nil {
		ds = drivers.Builtin()
	}
	plans, err := plan(s)
	if err != nil {
		return err
	}
	_, infos, err := NodeSetup(ds, s, nil)
	if err != nil {
		return err
	}
	flags := map[string][]string{} // spec label → every flag its nodes run with
	for _, info := range infos {
		flags[info.Label] = info.Flags
	}
	for _, p := range plans {
		for _, pair := range p.topo.Routes() {
			payer, ok := p.topo.Node(pair.Payer)
			if !ok {
				continue
			}
			drv, err := ds.Lookup(payer.Implementation)
			if err != nil || drv.RouteLimit == nil {
				continue
			}
			limit, why := drv.RouteLimit(flags[payer.Spec])
			if hops := p.topo.Hops(pair.Payer, pair.Payee); limit > 0 && hops > limit {
				return fmt.Errorf("topology %s: %s→%s is %d hops, and %s pays through %d at most: %s", p.topo.Name, pair.Payer, pair.Payee, hops, payer.Name, limit, why)
			}
		}
	}
	return nil
}
