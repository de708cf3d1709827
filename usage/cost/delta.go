package cost

import "github.com/lnbench/lnbench/usage"

// Readings taken at nearly the same moment can arrive out of order: a
// sample is stamped before its actor's counters are read, and two
// collections (the periodic one and an iteration's edge) may interleave,
// so a sample stamped later can hold a slightly smaller CPU counter (seen:
// the harness at 59.89 s, then 59.87 s 14 ms later). Such a step back is
// jitter, not a restart; a restarted process starts again near zero.
const (
	jitterCPUSeconds = 0.1  // the largest step back taken as jitter
	jitterCPUShare   = 0.05 // and at most this share of the counter
)

// cpuDelta is the CPU an actor used between samples p and s. A counter that
// went back by more than jitter, or a changed source (other counters), is a
// reset: the new value is the delta. A smaller step back counts as none.
func cpuDelta(p, s usage.Sample) (d float64, reset bool) {
	from, to := p.CPUSeconds(), s.CPUSeconds()
	if p.Source != s.Source {
		return to, true
	}
	if d = to - from; d >= 0 {
		return d, false
	}
	if -d <= jitterCPUSeconds && -d <= jitterCPUShare*from {
		return 0, false
	}
	return to, true
}
