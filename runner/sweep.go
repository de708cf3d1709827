package runner

import (
	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/result"
	"github.com/lnbench/lnbench/scenario"
)

// sweep tracks which step groups broke their bound, so later (higher) steps
// of the same group are skipped.
type sweep struct {
	cfg    *scenario.Sweep
	broken map[string]bool // group key: the case without the swept param
}

func newSweep(cfg *scenario.Sweep) *sweep { return &sweep{cfg: cfg, broken: map[string]bool{}} }

func (s *sweep) group(c scenario.Case) string {
	var rest []scenario.Value
	for _, v := range c.Values {
		if v.Name != s.cfg.Param {
			rest = append(rest, v)
		}
	}
	return scenario.Case{Values: rest}.ID()
}

func (s *sweep) skip(c scenario.Case) bool { return s.cfg != nil && s.broken[s.group(c)] }

// observe checks a finished case against the bounds; true stops its group.
func (s *sweep) observe(c scenario.Case, stream string, sc scenario.Scenario) bool {
	if s.cfg == nil {
		return false
	}
	recs, err := result.ReadFile(stream)
	if err != nil {
		return false
	}
	res := analysis.Analyze(recs, []string{c.ID()}, map[string]analysis.Shape{c.ID(): {Payments: c.Int("TotalPayments", 100), Invocations: sc.Job.InvocationCount}})[0]
	if BreaksBound(res, s.cfg) {
		s.broken[s.group(c)] = true
		return true
	}
	return false
}

// BreaksBound tells whether a case's latency or errors exceed the sweep's bounds.
func BreaksBound(c analysis.Case, cfg *scenario.Sweep) bool {
	if cfg.MaxP99Ms > 0 && c.Latency.P99 > cfg.MaxP99Ms {
		return true
	}
	if cfg.MaxErrorRate > 0 && c.ErrorRate() > cfg.MaxErrorRate {
		return true
	}
	return c.Payments > 0 && c.Succeeded == 0
}
