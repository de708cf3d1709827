package analysis

import (
	"sort"
	"time"

	"github.com/lnbench/lnbench/record/result"
)

// span is one iteration as its records show it: from the first start to
// the last end, with its payments and their latencies.
type span struct {
	start, end time.Time
	n, ok      int
	lat        []float64 // ms, successful payments
}

// spans groups records by iteration and returns them with the sorted
// iteration indexes.
func spans(recs []result.Record) (map[int]*span, []int) {
	iters := map[int]*span{}
	for _, r := range recs {
		s := iters[r.Iteration]
		if s == nil {
			s = &span{start: r.Start, end: r.End}
			iters[r.Iteration] = s
		}
		if r.Start.Before(s.start) {
			s.start = r.Start
		}
		if r.End.After(s.end) {
			s.end = r.End
		}
		if r.Status == result.Aborted {
			continue // it never finished: its iteration stays incomplete
		}
		s.n++
		if r.Status == result.Succeeded {
			s.ok++
			s.lat = append(s.lat, float64(r.Latency())/float64(time.Millisecond))
		}
	}
	idx := make([]int, 0, len(iters))
	for i := range iters {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	return iters, idx
}
