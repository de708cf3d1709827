package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/result"
)

// openLoop is n payments scheduled every 1000/rate ms, each completing
// after latency ms plus a queue that grows by extra ms per payment (a
// node that cannot keep up); failed payments at the given seqs.
func openLoop(n int, rateMs, latencyMs, extraMs float64, worker int, failed ...int) []result.Record {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	var out []result.Record
	for i := range n {
		start := t0.Add(ms(float64(i) * rateMs))
		r := result.Record{Case: "c", Phase: result.Measure, Worker: worker, Seq: i, Start: start,
			End: start.Add(ms(latencyMs + float64(i)*extraMs)), Status: result.Succeeded}
		for _, f := range failed {
			if f == i {
				r.Status = result.Failed
			}
		}
		out = append(out, r)
	}
	return out
}

func TestServedAndOffered(t *testing.T) {
	for _, tc := range []struct {
		name            string
		recs            []result.Record
		offered, served float64
	}{
		// 100 at 50/s (20 ms apart), 500 ms latency: ok/wall would be 40/s.
		{"healthy", openLoop(100, 20, 500, 0, -1), 50, 50},
		// Each payment waits 5 ms more than the last: completions every 25 ms.
		{"saturated", openLoop(100, 20, 100, 5, -1), 50, 40},
		// Failures are not served: 89 gaps between the 90 successes, which
		// span seqs 0..98 (the last payment failed).
		{"failures", openLoop(100, 20, 100, 0, -1, 99, 10, 20, 30, 40, 50, 60, 70, 80, 90), 50, 89 / (98 * 0.020)},
		{"closed loop", openLoop(100, 20, 100, 0, 3), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Analyze(tc.recs, []string{"c"}, map[string]Shape{"c": {Payments: 100, Invocations: 1}})[0]
			if math.Abs(c.OfferedPerSec-tc.offered) > 1e-6 || math.Abs(c.ServedPerSec-tc.served) > 1e-6 {
				t.Errorf("offered %.4f served %.4f, want %.4f %.4f", c.OfferedPerSec, c.ServedPerSec, tc.offered, tc.served)
			}
		})
	}
}
