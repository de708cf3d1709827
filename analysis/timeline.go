package analysis

import (
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/stats"
)

// timeline counts successful payments by the second they completed in,
// counted from the earliest start among recs (the measured records of one
// case). Gaps between iterations show as low buckets, which is the point:
// it is what a node saw over time.
func timeline(recs []result.Record) []int {
	if len(recs) == 0 {
		return nil
	}
	start, end := recs[0].Start, recs[0].End
	for _, r := range recs {
		if r.Start.Before(start) {
			start = r.Start
		}
		if r.End.After(end) {
			end = r.End
		}
	}
	out := make([]int, int(end.Sub(start)/time.Second)+1)
	for _, r := range recs {
		if r.Status == result.Succeeded {
			out[max(0, int(r.End.Sub(start)/time.Second))]++
		}
	}
	return out
}

// binCounts bins xs into h's bins the way stats.NewHistogram does (the
// maximum falls in the last bin), so iteration rows add up to h.
func binCounts(h stats.Histogram, xs []float64) []int {
	if len(h.Counts) == 0 {
		return nil
	}
	out := make([]int, len(h.Counts))
	for _, x := range xs {
		i := 0
		if h.Width > 0 {
			i = int((x - h.Lo) / h.Width)
		}
		out[max(0, min(i, len(out)-1))]++
	}
	return out
}
