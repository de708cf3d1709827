package cost

import (
	"time"

	"github.com/lnbench/lnbench/usage"
)

// Usage is one actor's CPU and sync rate over a time window.
type Usage struct {
	CPUs  float64 // cores used
	Limit float64 // the actor's quota, else the host's cores; 0 unknown
	// SyncsPerSec is -1 when no sync counter covered the window.
	SyncsPerSec float64
	Seconds     float64 // the sampled span the rates are over
}

// Percent is CPUs as a percentage of Limit (-1 when no limit is known).
func (u Usage) Percent() float64 {
	if u.Limit <= 0 {
		return -1
	}
	return 100 * u.CPUs / u.Limit
}

// Window is actor's usage between from and to, from the last sample at or
// before from to the first at or after to (the tightest sampled span that
// covers the window; shorter when the samples do not reach). ok is false
// without two samples of one series in that span.
func Window(samples []usage.Sample, actor string, from, to time.Time, hostCores int) (Usage, bool) {
	var best Usage
	found := false
	for k, ss := range seriesOf(samples) {
		if k.actor != actor {
			continue
		}
		lo, hi := -1, -1
		for i, s := range ss {
			if !s.Time.After(from) {
				lo = i
			}
			if hi < 0 && !s.Time.Before(to) {
				hi = i
			}
		}
		if lo < 0 {
			lo = 0
		}
		if hi < 0 {
			hi = len(ss) - 1
		}
		if hi <= lo {
			continue
		}
		p, s := ss[lo], ss[hi]
		dt := s.Time.Sub(p.Time).Seconds()
		if dt <= 0 || s.CPUSeconds() < p.CPUSeconds() || (found && dt < best.Seconds) {
			continue // a reset, or a shorter span than another series gives
		}
		u := Usage{CPUs: (s.CPUSeconds() - p.CPUSeconds()) / dt, Limit: s.CPULimit, SyncsPerSec: -1, Seconds: dt}
		if u.Limit == 0 {
			u.Limit = float64(hostCores)
		}
		if p.SyncsCounted && s.SyncsCounted && s.Syncs >= p.Syncs {
			u.SyncsPerSec = float64(s.Syncs-p.Syncs) / dt
		}
		best, found = u, true
	}
	return best, found
}
