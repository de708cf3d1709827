package report

import (
	"fmt"

	"github.com/lnbench/lnbench/sweep"
)

// Knee is the sweep step with the highest throughput whose latency and
// errors stay within the sweep's bounds, for one group of the other params.
type Knee struct {
	Group string // the case without the swept param
	Best  *Row   // nil when no step stayed within the bounds
	// BrokenAt is the first step that broke a bound ("" if none did).
	BrokenAt string
}

// Knees finds the knee of every sweep group, in case order.
func Knees(r Report) []Knee {
	sw := sweep.New(r.Scenario.Sweep)
	if sw == nil {
		return nil
	}
	var order []string
	byGroup := map[string]*Knee{}
	for i := range r.Cases {
		c := &r.Cases[i]
		g := sw.Group(c.Params)
		k := byGroup[g]
		if k == nil {
			k = &Knee{Group: g}
			byGroup[g] = k
			order = append(order, g)
		}
		within := sw.Within(c.Case)
		switch {
		case !within && k.BrokenAt == "":
			k.BrokenAt = sw.Step(c.Params)
		case within && (k.Best == nil || c.PaymentsPerSec > k.Best.PaymentsPerSec):
			k.Best = c
		}
	}
	out := make([]Knee, 0, len(order))
	for _, g := range order {
		out = append(out, *byGroup[g])
	}
	return out
}

// KneeLines describes each knee in one line.
func KneeLines(r Report) []string {
	sw := r.Scenario.Sweep
	var lines []string
	for _, k := range Knees(r) {
		group := k.Group
		if group == "" {
			group = "sweep"
		}
		bound := fmt.Sprintf("p99 ≤ %g ms, error rate ≤ %g", sw.MaxP99Ms, sw.MaxErrorRate)
		if k.Best == nil {
			lines = append(lines, fmt.Sprintf("%s: no %s step stayed within the bounds (%s)", group, sw.Param, bound))
			continue
		}
		l := fmt.Sprintf("%s: knee at %s: %.2f payments/s, p99 %.0f ms (bounds: %s)", group, k.Best.ID, k.Best.PaymentsPerSec, k.Best.Latency.P99, bound)
		if k.BrokenAt != "" {
			l += "; first step beyond the bounds: " + k.BrokenAt
		}
		lines = append(lines, l)
	}
	return lines
}
