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
	DesignSequential:        0.356,
	DesignInterleaved:       0.139,
	designInterleavedFrozen: 0.046,
	DesignDuet:              0.024,
	DesignDuetSolo:          0.024,
}

// designInterleavedFrozen keys LaunchPairSpread for the interleaved design
// with the waiting networks frozen (the default).
const designInterleavedFrozen = "interleaved with the waiting networks frozen"

// PairSpread is LaunchPairSpread of a design, its waiting networks frozen
// or not, and the name it is measured under; an unknown design (two
// separate runs) counts as sequential.
func PairSpread(design string, frozen bool) (float64, string) {
	if design == DesignInterleaved && frozen {
		design = designInterleavedFrozen
	}
	if _, ok := LaunchPairSpread[design]; !ok {
		design = DesignSequential
	}
	return LaunchPairSpread[design], design
}
