package report

import "github.com/lnbench/lnbench/scenario"

// Design names, as the scenario spells them.
const (
	DesignSequential  = scenario.DesignSequential
	DesignInterleaved = scenario.DesignInterleaved
	DesignDuet        = scenario.DesignDuet
	DesignDuetSolo    = scenario.DesignDuetSolo
)

// LaunchPairSpread is the root-mean-square log ratio of one launch pair of
// the same build, by design, measured on the 2-core reference VM with
// lnbench calibrate (docs/measured.md, Comparison designs): what the plan
// line and a one-launch note assume before a run has a spread of its own.
// duet-solo's verdicts take their direction from its duet half.
var LaunchPairSpread = map[string]float64{
	DesignSequential:  0.356,
	DesignInterleaved: 0.139,
	DesignDuet:        0.024,
	DesignDuetSolo:    0.024,
}
