package record

import (
	"fmt"
	"strings"

	"github.com/lnbench/lnbench/scenario"
)

// Design is how a comparison's launches were laid out in time: recorded by
// the runner, shown beside the verdicts because it decides what they are
// worth.
type Design struct {
	// Name: sequential (one network at a time), interleaved (a launch
	// round's networks up together, measured iterations alternating) or
	// duet (a launch round's networks measured at the same moment).
	Name string `json:"name"`
	// Iterations is how the interleaved design orders a round's measured
	// iterations; CPUs how duet's networks share the cores.
	Iterations string `json:"iterations,omitempty"`
	CPUs       string `json:"cpus,omitempty"`
	// Frozen: the networks waiting while one ran alone were paused.
	Frozen bool `json:"frozen,omitempty"`
	// CPUSets are the networks' CPU sets where duet split the cores.
	CPUSets []CPUSet `json:"cpu_sets,omitempty"`
	// Fallback says why the run fell back to sequential from the design
	// it was asked for (two networks did not fit the memory guard).
	Fallback string `json:"fallback,omitempty"`
	// Order is abba or shuffled (scenario.Compare); Seed the shuffle's.
	Order string `json:"order"`
	Seed  uint64 `json:"seed,omitempty"`
	// Rounds are the launch rounds in the order they ran, each the spec
	// labels in their running order: [[a b] [b a] …].
	Rounds [][]string `json:"rounds"`
	// UntilKnown runs added rounds until every verdict was known or
	// MaxLaunches per spec ran; Stopped says which.
	UntilKnown  bool `json:"until_known,omitempty"`
	MaxLaunches int  `json:"max_launches,omitempty"`
	// Looks is how many times until-known may read the verdicts; each
	// verdict then tests at alpha/Looks.
	Looks   int    `json:"looks,omitempty"`
	Stopped string `json:"stopped,omitempty"`
}

// Alpha is the significance level of the verdicts: alpha split over the
// looks of an until-known run (optional stopping would otherwise raise
// the false-positive rate with every look).
func (d *Design) Alpha(alpha float64) float64 {
	if d == nil || d.Looks < 2 {
		return alpha
	}
	return alpha / float64(d.Looks)
}

// what says in a few words what a design does.
func (d Design) what() string {
	switch d.Name {
	case scenario.DesignInterleaved:
		return "each launch round's networks up together, measured iterations alternating: " + d.Iterations
	case scenario.DesignDuet:
		return "each launch round's networks measured at the same moment, iteration by iteration; CPUs " + d.CPUs
	case scenario.DesignDuetSolo:
		return "each launch round's networks up together: " + d.Iterations
	}
	return "one network at a time"
}

// Sequence is the spec labels of every launch in running order, rounds
// apart: "a b | b a".
func (d Design) Sequence() string {
	var rounds []string
	for _, r := range d.Rounds {
		rounds = append(rounds, strings.Join(r, " "))
	}
	return strings.Join(rounds, " | ")
}

// Line is the design in one line for the environment block.
func (d Design) Line() string {
	seed := ""
	if d.Seed != 0 {
		seed = fmt.Sprintf(" (seed %d)", d.Seed)
	}
	out := fmt.Sprintf("Design: %s (%s), %d launch round(s) in %s order%s: %s", d.Name, d.what(), len(d.Rounds), d.Order, seed, d.Sequence())
	if d.Fallback != "" {
		out += "; " + d.Fallback
	}
	if d.UntilKnown {
		out += fmt.Sprintf("; until known, at most %d launches per spec, %d looks at alpha/%d each", d.MaxLaunches, d.Looks, d.Looks)
		if d.Stopped != "" {
			out += ": " + d.Stopped
		}
	}
	return out
}

// CPUSet is the CPUs one network's actors ran on (the kernel's list
// notation, e.g. 0-2).
type CPUSet struct {
	Network string `json:"network"`
	CPUs    string `json:"cpus"`
}
