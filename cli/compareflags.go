package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/stats"
)

// compareFlags override the scenario's compare block.
type compareFlags struct {
	design      string
	order       string
	seed        uint64
	untilKnown  bool
	maxLaunches int
	effect      string
	duetCPUs    string
	freezeIdle  optionalBool
}

func addCompareFlags(fl *pflag.FlagSet, f *compareFlags) {
	fl.StringVar(&f.design, "design", "", fmt.Sprintf("comparisons: sequential (one network at a time), interleaved (a launch pair's networks up together, iterations alternating) duet (both measured at once) or duet-solo (half the iterations in duet for the direction, half alone for the size); default %s, sequential with faults or a timed job", scenario.DefaultDesign))
	fl.StringVar(&f.order, "order", "", "comparisons: launch order of the specs, abba (default: A B B A …) or shuffled")
	fl.Uint64Var(&f.seed, "seed", 0, "comparisons: seed of a shuffled order (0 = pick one; it is recorded)")
	fl.BoolVar(&f.untilKnown, "until-known", false, "comparisons: add launch pairs until every verdict is known (faster, slower or same) or --max-launches ran")
	fl.IntVar(&f.maxLaunches, "max-launches", 0, fmt.Sprintf("comparisons: cap of --until-known, launches per spec (0 = %d)", scenario.DefaultMaxLaunches))
	fl.StringVar(&f.duetCPUs, "duet-cpus", "", "comparisons in duet: shared (every network on every CPU) or split (a CPU set per network); default: split where every actor of every network keeps a CPU of its own")
	fl.Var(&f.freezeIdle, "freeze-idle", "comparisons in interleaved or duet-solo: pause the waiting networks' processes while one runs alone (default on; --freeze-idle=false leaves them running)")
	fl.Lookup("freeze-idle").NoOptDefVal = "true"
	fl.StringVar(&f.effect, "effect", "", fmt.Sprintf("comparisons: smallest change worth knowing, e.g. 3%% (default %g%%): \"same\" excludes larger ones", 100*scenario.DefaultEffect))
}

// apply sets the flags given on the scenario's compare block.
func (f compareFlags) apply(s *scenario.Scenario) error {
	c := &s.Compare
	if f.design != "" {
		c.Design = f.design
	}
	if f.order != "" {
		c.Order = f.order
	}
	if f.seed != 0 {
		c.Seed = f.seed
		if c.Order == "" {
			c.Order = scenario.OrderShuffled // a seed only means something shuffled
		}
	}
	if f.untilKnown {
		c.UntilKnown = true
	}
	if f.duetCPUs != "" {
		c.CPUs = f.duetCPUs
	}
	if f.freezeIdle.v != nil {
		c.FreezeIdle = f.freezeIdle.v
	}
	if f.maxLaunches != 0 {
		c.MaxLaunches = f.maxLaunches
	}
	if f.effect != "" {
		v, err := parseEffect(f.effect)
		if err != nil {
			return err
		}
		c.Effect = v
	}
	return nil
}

// parseEffect reads "3%" or "0.03".
func parseEffect(text string) (float64, error) {
	t := strings.TrimSpace(text)
	scale := 1.0
	if strings.HasSuffix(t, "%") {
		t, scale = strings.TrimSuffix(t, "%"), 0.01
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v*scale > 0 && v*scale < 1) {
		return 0, fmt.Errorf("--effect %q: give a relative change, e.g. 3%% or 0.03", text)
	}
	return v * scale, nil
}

// launchesWhy is the plan line's reason for a comparison's default launch
// count, with what it can detect; "" when the scenario chose the count.
func launchesWhy(s scenario.Scenario) string {
	if s.LaunchCountSet || !s.Compares() || s.Job.LaunchCount != scenario.DefaultCompareLaunches {
		return ""
	}
	design := s.Design() + " design"
	spread, _ := report.PairSpread(s.Design(), s.Freezes())
	if s.Freezes() {
		design += " with the waiting networks frozen"
	}
	mde := stats.MDE(spread, s.Job.LaunchCount, true, stats.DefaultAlpha, stats.DefaultPower)
	return fmt.Sprintf("LaunchCount=%d per spec, the default of a comparison: launches, not iterations, carry the variance (a case's mean moves 3–10%% between fresh networks, ≈2%% within one), "+
		"so the verdict tests one value per launch; in the %s %d launch pairs detect ≈%.0f%% at the %.1f%% spread of one pair measured on a busy 2-core VM (the report prints this run's own MDE), "+
		"at %d× the time of one launch per spec; set job.LaunchCount, or add --until-known", s.Job.LaunchCount, design, s.Job.LaunchCount, 100*mde, 100*spread, s.Job.LaunchCount)
}

// optionalBool is a bool flag that tells whether it was given, so that an
// unset flag leaves the scenario's value (or its default) alone.
type optionalBool struct{ v *bool }

func (o *optionalBool) String() string {
	if o.v == nil {
		return ""
	}
	return strconv.FormatBool(*o.v)
}

func (o *optionalBool) Set(text string) error {
	b, err := strconv.ParseBool(text)
	if err != nil {
		return err
	}
	o.v = &b
	return nil
}

func (o *optionalBool) Type() string { return "bool" }
