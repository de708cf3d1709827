// Package sweep owns a sweep's rules: which cases form a group (the case
// without the swept param), whether a finished step stays within the
// bounds, and which groups broke them. The runner uses it to stop a group
// early; the report uses it to name each group's knee.
package sweep

import (
	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/scenario"
)

// Sweep applies one scenario's sweep. A nil *Sweep (no sweep configured)
// skips nothing and sees no breaks.
type Sweep struct {
	cfg    scenario.Sweep
	broken map[string]bool // by group
}

// New returns nil when cfg is nil: the scenario does not sweep.
func New(cfg *scenario.Sweep) *Sweep {
	if cfg == nil {
		return nil
	}
	return &Sweep{cfg: *cfg, broken: map[string]bool{}}
}

// Group names a case's group: its id without the swept param.
func (s *Sweep) Group(values []scenario.Value) string {
	var rest []scenario.Value
	for _, v := range values {
		if v.Name != s.cfg.Param {
			rest = append(rest, v)
		}
	}
	return scenario.Case{Values: rest}.ID()
}

// Step names a case's step: "Rate=100" ("" when the case lacks the param).
func (s *Sweep) Step(values []scenario.Value) string {
	for _, v := range values {
		if v.Name == s.cfg.Param {
			return v.Name + "=" + v.Value
		}
	}
	return ""
}

// ServedTolerance is how far an open loop's served rate may fall below
// its offered rate before the step counts as saturated: a step's first and
// last completions jitter by a latency's spread, a few percent of a short
// iteration, while a node that cannot keep up falls further behind with
// every payment.
const ServedTolerance = 0.05

// Saturated tells whether an open-loop case served fewer payments/s than
// it was offered, beyond ServedTolerance (false in a closed loop).
func Saturated(c analysis.Case) bool {
	return c.OfferedPerSec > 0 && c.ServedPerSec < (1-ServedTolerance)*c.OfferedPerSec
}

// Within tells whether a finished case kept its p99 latency and error rate
// within the bounds (a bound ≤ 0 is off), had at least one success and,
// in an open loop, served what it was offered (Saturated).
func (s *Sweep) Within(c analysis.Case) bool {
	if Saturated(c) {
		return false
	}
	if s.cfg.MaxP99Ms > 0 && c.Latency.P99 > s.cfg.MaxP99Ms {
		return false
	}
	if s.cfg.MaxErrorRate > 0 && c.ErrorRate() > s.cfg.MaxErrorRate {
		return false
	}
	return c.Succeeded > 0
}

// Observe records a finished case; true when it broke a bound, which stops
// the rest of its group.
func (s *Sweep) Observe(values []scenario.Value, c analysis.Case) bool {
	if s == nil || s.Within(c) {
		return false
	}
	s.broken[s.Group(values)] = true
	return true
}

// Skip tells whether an earlier step of the case's group broke a bound.
func (s *Sweep) Skip(values []scenario.Value) bool {
	return s != nil && s.broken[s.Group(values)]
}
