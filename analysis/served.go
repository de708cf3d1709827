package analysis

import (
	"slices"
	"time"

	"github.com/lnbench/lnbench/record/result"
)

// servedAndOffered sets an open-loop case's offered rate (the pacer's) and
// served rate (successful payments/s), pooled over its measured
// iterations; closed-loop cases (Worker ≥ 0) get neither.
//
// Offered is read from the schedule: open-loop records carry their
// scheduled start, due at Offset(i) = i/PerSecond, so (n−1) over the first
// to the last start is wl.PerSecond(pairs) without knowing the topology's
// pairs (RatePerPair). Served is (ok−1) over the first to the last success's
// end: the completion rate, blind to the fixed latency at either end that
// makes ok/wall understate a healthy short iteration (100 payments at
// 50/s with 0.5 s latency: 40/s).
func servedAndOffered(c *Case, recs []result.Record) {
	type it struct {
		starts, ends []time.Time
	}
	iters := map[int]*it{}
	for _, r := range recs {
		if r.Worker >= 0 || r.Status == result.Aborted {
			return // closed loop, or an interrupted case
		}
		i := iters[r.Iteration]
		if i == nil {
			i = &it{}
			iters[r.Iteration] = i
		}
		i.starts = append(i.starts, r.Start)
		if r.Status == result.Succeeded {
			i.ends = append(i.ends, r.End)
		}
	}
	var offN, servN int
	var offSecs, servSecs float64
	for _, i := range iters {
		if s := spanOf(i.starts); s > 0 {
			offN, offSecs = offN+len(i.starts)-1, offSecs+s
		}
		if s := spanOf(i.ends); s > 0 {
			servN, servSecs = servN+len(i.ends)-1, servSecs+s
		}
	}
	if offSecs > 0 {
		c.OfferedPerSec = float64(offN) / offSecs
		if servSecs > 0 {
			c.ServedPerSec = float64(servN) / servSecs
		}
	}
}

// spanOf is the last time minus the first, in seconds (0 with fewer than two).
func spanOf(ts []time.Time) float64 {
	if len(ts) < 2 {
		return 0
	}
	lo := slices.MinFunc(ts, time.Time.Compare)
	hi := slices.MaxFunc(ts, time.Time.Compare)
	return hi.Sub(lo).Seconds()
}
