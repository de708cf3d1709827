package runner

import (
	"fmt"
	"time"

	"github.com/lnbench/lnbench/scenario"
)

// Rough figures measured on a 2-core machine (see README): used only to warn
// before a long run, never reported as results.
const (
	setupPerNetwork     = 10 * time.Second
	setupPerExtraNode   = 2 * time.Second
	typicalPaymentsPerS = 60.0
)

// Estimate guesses a scenario's wall time and returns a warning when the
// params' product explodes.
func Estimate(s scenario.Scenario) (networks int, d time.Duration, warning string) {
	plans, err := plan(s)
	if err != nil || s.Job.IterationCount >= 1<<30 {
		return len(plans), 0, "" // soak: bounded by its duration, not by iterations
	}
	for _, p := range plans {
		d += setupPerNetwork + time.Duration(len(p.topo.Nodes)-2)*setupPerExtraNode
		for _, c := range p.cases {
			perIter := float64(c.c.Int("TotalPayments", 100)*s.Job.InvocationCount) / typicalPaymentsPerS
			if r := c.c.Int("Rate", 0); r > 0 {
				perIter = float64(c.c.Int("TotalPayments", 100)*s.Job.InvocationCount) / float64(r)
			}
			d += time.Duration(perIter * float64(s.Job.WarmupCount+s.Job.IterationCount) * float64(time.Second))
		}
	}
	cases := len(s.Cases()) * s.Job.LaunchCount
	if cases > 32 || d > time.Hour {
		warning = fmt.Sprintf("warning: %d cases, roughly %v: reduce the param lists or use --quick if this is not intended", cases, d.Round(time.Minute))
	}
	return len(plans), d, warning
}
