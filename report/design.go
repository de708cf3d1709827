package report

import "github.com/lnbench/lnbench/scenario"

// Design names, as the scenario spells them.
const (
	DesignSequential  = scenario.DesignSequential
	DesignInterleaved = scenario.DesignInterleaved
	DesignDuet        = scenario.DesignDuet
	DesignDuetSolo    = scenario.DesignDuetSolo
)
