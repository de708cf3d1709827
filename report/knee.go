package report

import (
	"fmt"
	"strings"

	"github.com/lnbench/lnbench/sweep"
)

// Knee is the sweep step with the highest throughput whose latency and
// errors stay within the sweep's bounds, for one group of the other params.
type Knee struct {
	Group string // the case without the swept param
	Best  *Row   // nil when no step stayed within the bounds
	// BrokenAt is the first step that broke a bound ("" if none did).
	BrokenAt string
	// Saturated are the steps that served less than they were offered.
	Saturated []Saturation
}

// Saturation is an open-loop step served below its offered rate.
type Saturation struct {
	Step            string
	Served, Offered float64 // payments/s
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
		if sweep.Saturated(c.Case) {
			k.Saturated = append(k.Saturated, Saturation{Step: sw.Step(c.Params), Served: c.ServedPerSec, Offered: c.OfferedPerSec})
		}
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
		bound := fmt.Sprintf("p99 ≤ %g ms, error rate ≤ %g, served ≥ %g%% of offered", sw.MaxP99Ms, sw.MaxErrorRate, 100*(1-sweep.ServedTolerance))
		var sat []string
		for _, s := range k.Saturated {
			sat = append(sat, fmt.Sprintf("served %.2f/s < offered %.2f/s at %s", s.Served, s.Offered, s.Step))
		}
		l := fmt.Sprintf("%s: no %s step stayed within the bounds (%s)", group, sw.Param, bound)
		if k.Best != nil {
			l = fmt.Sprintf("%s: knee at %s: %.2f payments/s, p99 %.0f ms (bounds: %s)", group, k.Best.ID, k.Best.PaymentsPerSec, k.Best.Latency.P99, bound)
			if k.BrokenAt != "" {
				l += "; first step beyond the bounds: " + k.BrokenAt
			}
		}
		if len(sat) > 0 {
			l += "; saturated: " + strings.Join(sat, ", ")
		}
		lines = append(lines, l)
	}
	return lines
}
