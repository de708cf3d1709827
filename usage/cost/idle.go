package cost

import (
	"fmt"

	"github.com/lnbench/lnbench/usage"
)

// idleNote says what a network of the interleaved design used while it
// waited for the other network of its launch pair to measure: its actors'
// cores over the intervals tagged idle (the harness left out: it was
// driving the other network). "" when the case has no idle samples.
func idleNote(caseID string, series map[seriesKey][]usage.Sample) string {
	cores, seconds := 0.0, 0.0
	for k, ss := range series {
		// The harness drove the other network; the host is every process.
		if k.actor == usage.RoleHarness || len(ss) == 0 || ss[0].Role == usage.RoleHost {
			continue
		}
		cpu, secs := 0.0, 0.0
		for i := 1; i < len(ss); i++ {
			p, s := ss[i-1], ss[i]
			if s.Case != caseID || s.Phase != usage.PhaseIdle {
				continue
			}
			d, _ := cpuDelta(p, s) // after a restart, the new counter's value
			cpu += d
			secs += s.Time.Sub(p.Time).Seconds()
		}
		if secs > 0 {
			cores += cpu / secs
			seconds = max(seconds, secs)
		}
	}
	if seconds == 0 {
		return ""
	}
	return fmt.Sprintf("idle: while the other network of its launch pair measured (%.0f s), this network's actors used %.3f cores", seconds, cores)
}
