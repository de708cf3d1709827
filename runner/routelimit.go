package runner

import (
	"fmt"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/node/drivers"
	"github.com/lnbench/lnbench/scenario"
)

// checkRouteLimits refuses, before anything starts, a network with a
// payer whose implementation would not pay through as many hops as its
// payee is away (LND's route probability floor): its setup would wait
// minutes on a warm-up payment that never routes.
func checkRouteLimits(plans []networkPlan, ds node.Drivers, configs map[string]backend.NodeConfig) error {
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
			cfg := configs[payer.Spec]
			var flags []string
			if drv.Flags != nil {
				flags = drv.Flags(cfg.DBBackend)
			}
			limit, why := drv.RouteLimit(append(flags, cfg.Args...))
			if hops := p.topo.Hops(pair.Payer, pair.Payee); limit > 0 && hops > limit {
				return fmt.Errorf("topology %s: %s→%s is %d hops, and %s pays through %d at most: %s", p.topo.Name, pair.Payer, pair.Payee, hops, payer.Name, limit, why)
			}
		}
	}
	return nil
}

// CheckRoutes is checkRouteLimits for a scenario as planned, before any
// build: a command refuses what its run would never route (nil ds: the
// built-in drivers).
func CheckRoutes(s scenario.Scenario, ds node.Drivers) error {
	if ds == nil {
		ds = drivers.Builtin()
	}
	plans, err := plan(s)
	if err != nil {
		return err
	}
	configs, _, err := NodeSetup(ds, s, nil)
	if err != nil {
		return err
	}
	return checkRouteLimits(plans, ds, configs)
}
