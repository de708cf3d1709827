package scenario

import (
	"fmt"
	"math"
)

// Compare settings shape how a run of several node specs against a
// baseline orders its launches and decides its verdicts.
type Compare struct {
	// Design is how the specs' networks share the machine: sequential (one
	// network at a time), interleaved (a launch pair's networks up
	// together, measured iterations alternating in shuffled rounds), duet
	// (both measured at the same moment, the same iteration schedule) or
	// duet-solo (the first half of the iterations in duet, the second half
	// interleaved, each network alone: the direction from the duet, the
	// size from the solo half).
	Design string `yaml:"design" json:"design,omitempty"`
	// Fallback says why the run fell back to sequential from the design
	// asked for (set by the memory guard, never read from a file).
	Fallback string `yaml:"-" json:"-"`
	// Order of each launch round's specs: abba (the default; every other
	// round reversed, A B B A …) or shuffled (a random order per round from
	// Seed). Never all of one spec's launches first.
	Order string `yaml:"order" json:"order,omitempty"`
	// Seed of a shuffled order; 0 picks one, recorded in the artifacts.
	Seed uint64 `yaml:"seed" json:"seed,omitempty"`
	// UntilKnown adds launch rounds after LaunchCount until every verdict
	// is known (faster, slower or same) or MaxLaunches per spec have run.
	UntilKnown  bool `yaml:"until_known" json:"until_known,omitempty"`
	MaxLaunches int  `yaml:"max_launches" json:"max_launches,omitempty"`
	// Effect is the smallest relative change worth knowing (0.05 = 5%): a
	// verdict of "same" excludes any larger change, and the report
	// suggests the launch count that would detect it.
	Effect float64 `yaml:"effect" json:"effect,omitempty"`
	// CPUs is how a duet round's networks share the cores: shared (every
	// network on every core), split (each network on a CPU set of its
	// own), or "" (auto: split where every actor of every network keeps a
	// core of its own, shared below that).
	CPUs string `yaml:"cpus" json:"cpus,omitempty"`
	// FreezeIdle pauses every process of the networks that wait while one
	// network runs an iteration alone (interleaved, duet-solo's solo
	// half), so that it has the machine to itself: an idle twin still
	// used 0.11 cores (docs/measured.md). Unset: on in those designs
	// (Scenario.Freezes).
	FreezeIdle *bool `yaml:"freeze_idle" json:"freeze_idle,omitempty"`
}

// How duet's networks share the cores.
const (
	CPUsShared = "shared"
	CPUsSplit  = "split"
)

// Designs.
const (
	DesignSequential  = "sequential"
	DesignInterleaved = "interleaved"
	DesignDuet        = "duet"
	// DesignDuetSolo measures each launch round twice over: half of the
	// iterations in duet (both networks at once: steady under outside
	// load, but a CPU-bound change slows its twin too and reads smaller),
	// the other half interleaved (each network alone: the size a user sees
	// running one build). The verdict's direction comes from the duet half,
	// its size and "same" from the solo half.
	DesignDuetSolo = "duet-solo"
)

// SoloIterations is how many of a duet-solo launch's measured iterations
// run alone (the second half); the rest run in duet.
func SoloIterations(iterations int) int { return iterations / 2 }

// DefaultDesign is the design of a comparison that names none, when its
// job and faults allow it (Design), with the waiting networks frozen
// (Freezes). Chosen for the size a user sees (docs/measured.md, "The size
// a user would see"): against each build alone (30 sequential rounds), a
// CPU-bound change read 0.96 of its size interleaved and frozen, 0.59–0.65
// in duet, where the changed network takes CPU from its twin; its A/A on
// the 2-core VM gave 1 false verdict of 64 (1.6%), a launch pair's spread
// of 4.6% and a median MDE of 4.9% (duet: 1 of 40, 2.4%, 3.3%).
const DefaultDesign = DesignInterleaved

// Launch orders.
const (
	OrderABBA     = "abba"
	OrderShuffled = "shuffled"
)

// Defaults of the compare block.
const (
	DefaultEffect      = 0.05
	DefaultMaxLaunches = 20
	// DefaultCompareLaunches is LaunchCount when several specs are compared
	// and the scenario does not set it. On the 2-core reference VM a case's
	// mean moves 3–10% between launches (12.5% RMS between two single
	// launches), against ≈2% within one: launches are the unit. 6 is the
	// smallest even count (whole A B B A blocks, so a linear drift cancels)
	// whose paired t test has 5 degrees of freedom (t = 2.57, against 4.30
	// with 3): about 6× the time of one launch per spec. docs/verdicts.md has
	// the detectable effects.
	DefaultCompareLaunches = 6
	// unsetLaunches marks a file without job.LaunchCount while parsing.
	unsetLaunches = -1
)

// OrderOrDefault is the launch order, abba when unset.
func (c Compare) OrderOrDefault() string {
	if c.Order == "" {
		return OrderABBA
	}
	return c.Order
}

// EffectOrDefault is the effect the verdicts size, 5% when unset.
func (c Compare) EffectOrDefault() float64 {
	if c.Effect == 0 {
		return DefaultEffect
	}
	return c.Effect
}

// MaxLaunchesOrDefault is the until-known cap, 20 launches per spec when unset.
func (c Compare) MaxLaunchesOrDefault() int {
	if c.MaxLaunches == 0 {
		return DefaultMaxLaunches
	}
	return c.MaxLaunches
}

// Compares tells whether the run compares several specs with a baseline.
func (s Scenario) Compares() bool { return len(s.Specs()) > 1 && s.Baseline != "" }

// ApplyCompareDefaults gives a run comparing specs DefaultCompareLaunches
// launches when neither the file nor a flag set LaunchCount; one spec keeps
// its default.
func (s *Scenario) ApplyCompareDefaults() {
	if !s.LaunchCountSet && s.Compares() && !s.Job.Timed() && s.Job.LaunchCount < DefaultCompareLaunches {
		s.Job.LaunchCount = DefaultCompareLaunches
	}
}

// validateCompare names the field and the fix of a bad compare block.
func (s Scenario) validateCompare() error {
	c := s.Compare
	switch c.Design {
	case "", DesignSequential:
	case DesignInterleaved, DesignDuet, DesignDuetSolo:
		if c.Design == DesignDuetSolo && !s.Job.Timed() && s.Job.IterationCount < 4 {
			return fmt.Errorf("compare.design duet-solo with job.IterationCount %d: it runs half the iterations in duet and half alone, and each half needs 2; set job.IterationCount ≥ 4", s.Job.IterationCount)
		}
		if s.Job.Timed() {
			return fmt.Errorf("compare.design %s with job.Duration: the %s design schedules a count of iterations; set job.IterationCount, or compare.design: sequential", c.Design, c.Design)
		}
		if len(s.Faults) > 0 {
			return fmt.Errorf("compare.design %s with faults: a fault hits one network of a pair mid-schedule; use compare.design: sequential (--design sequential) with faults", c.Design)
		}
	default:
		return fmt.Errorf("compare.design %q: use sequential, interleaved, duet or duet-solo", c.Design)
	}
	if c.FreezeIdle != nil && *c.FreezeIdle && !runsAlone(s.Design()) {
		return fmt.Errorf("compare.freeze_idle: it freezes the waiting network while another runs alone; use it with compare.design: interleaved or duet-solo")
	}
	switch c.CPUs {
	case "", CPUsShared:
	case CPUsSplit:
		if s.Design() != DesignDuet || !s.Compares() {
			return fmt.Errorf("compare.cpus split: CPU sets split a duet round's networks; compare two specs with compare.design: duet, or drop compare.cpus")
		}
	default:
		return fmt.Errorf("compare.cpus %q: use shared or split (unset: split where every actor keeps a core of its own)", c.CPUs)
	}
	switch c.Order {
	case "", OrderABBA, OrderShuffled:
	default:
		return fmt.Errorf("compare.order %q: use abba or shuffled", c.Order)
	}
	if c.Seed != 0 && c.OrderOrDefault() != OrderShuffled {
		return fmt.Errorf("compare.seed %d: a seed orders shuffled launches only; set compare.order: shuffled (--order shuffled)", c.Seed)
	}
	if c.Effect != 0 && !(c.Effect > 0 && c.Effect < 1) || math.IsNaN(c.Effect) {
		return fmt.Errorf("compare.effect %g: give a relative change between 0 and 1, e.g. 0.03 for 3%%", c.Effect)
	}
	if c.MaxLaunches < 0 || c.MaxLaunches > 200 {
		return fmt.Errorf("compare.max_launches %d: use 1 to 200 launches per spec (0 = %d)", c.MaxLaunches, DefaultMaxLaunches)
	}
	if c.UntilKnown {
		if !s.Compares() {
			return fmt.Errorf("compare.until_known: needs two node specs and a baseline to know a verdict of (nodes: and baseline:, or --node twice and --baseline)")
		}
		if s.Job.Timed() {
			return fmt.Errorf("compare.until_known with job.Duration: a timed job runs one launch; drop one of them")
		}
		if m := c.MaxLaunchesOrDefault(); m < s.Job.LaunchCount {
			return fmt.Errorf("compare.max_launches %d is below job.LaunchCount=%d: raise max_launches", m, s.Job.LaunchCount)
		}
	}
	return nil
}

// compareYAML is the compare block as the artifacts' scenario.yml records it.
func (c Compare) yaml() string {
	if c == (Compare{}) {
		return ""
	}
	out := "compare:\n  order: " + c.OrderOrDefault() + "\n"
	if c.Design != "" {
		out += "  design: " + c.Design + "\n"
	}
	if c.Seed != 0 {
		out += fmt.Sprintf("  seed: %d\n", c.Seed)
	}
	if c.UntilKnown {
		out += fmt.Sprintf("  until_known: true\n  max_launches: %d\n", c.MaxLaunchesOrDefault())
	}
	if c.Effect != 0 {
		out += fmt.Sprintf("  effect: %g\n", c.Effect)
	}
	if c.CPUs != "" {
		out += "  cpus: " + c.CPUs + "\n"
	}
	if c.FreezeIdle != nil {
		out += fmt.Sprintf("  freeze_idle: %t\n", *c.FreezeIdle)
	}
	return out
}
