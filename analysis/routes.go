package analysis

import (
	"sort"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/stats"
)

// Routes is how the measured payments travelled: hop counts and failure
// reasons per case, for traffic between many payer/payee pairs.
type Routes struct {
	// Payees is the number of distinct payees: more than one means the
	// traffic came from pairs drawn from the graph.
	Payees   int            `json:"payees"`
	Hops     []HopCount     `json:"hops"`
	Failures []FailureCount `json:"failures,omitempty"`
}

// HopCount is the succeeded payments of a case that took a route of Hops
// channels, their rate over the case's measured time and their latency
// percentiles (ms): what a longer route costs each payment.
type HopCount struct {
	Case      string  `json:"case"`
	Hops      int     `json:"hops"`
	Payments  int     `json:"payments"`
	Share     float64 `json:"share"` // of the case's succeeded payments
	PerSecond float64 `json:"per_second"`
	P50Ms     float64 `json:"p50_ms"`
	P90Ms     float64 `json:"p90_ms"`
	P99Ms     float64 `json:"p99_ms"`
}

// FailureCount is how often a case's payments failed for one reason.
type FailureCount struct {
	Case   string `json:"case"`
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// AnalyzeRoutes counts measured payments by hop count and failure reason.
// A case's rate divides by its measured time: the sum of its iterations'
// spans from first start to last end.
func AnalyzeRoutes(recs []result.Record) Routes {
	type iter struct {
		c string
		i int
	}
	spans := map[iter][2]time.Time{}
	hops := map[string]map[int][]float64{} // case → hops → latencies (ms)
	succeeded := map[string]int{}
	failures := map[[2]string]int{}
	payees := map[string]bool{}
	for _, r := range recs {
		if r.Phase != result.Measure {
			continue
		}
		payees[r.Payee] = true
		k := iter{r.Case, r.Iteration}
		s, ok := spans[k]
		if !ok || r.Start.Before(s[0]) {
			s[0] = r.Start
		}
		if !ok || r.End.After(s[1]) {
			s[1] = r.End
		}
		spans[k] = s
		if r.Status == result.Aborted {
			continue // the harness stopped it: not a route failure
		}
		if r.Status != result.Succeeded {
			reason := r.FailureReason
			if reason == "" {
				reason = r.Status
			}
			failures[[2]string{r.Case, reason}]++
			continue
		}
		if hops[r.Case] == nil {
			hops[r.Case] = map[int][]float64{}
		}
		hops[r.Case][r.Hops] = append(hops[r.Case][r.Hops], float64(r.Latency())/float64(time.Millisecond))
		succeeded[r.Case]++
	}
	measured := map[string]time.Duration{}
	for k, s := range spans {
		measured[k.c] += s[1].Sub(s[0])
	}
	out := Routes{Payees: len(payees)}
	for c, byHops := range hops {
		for h, lat := range byHops {
			n := len(lat)
			ps := stats.Percentiles(lat, 50, 90, 99)
			hc := HopCount{Case: c, Hops: h, Payments: n, Share: float64(n) / float64(succeeded[c]), P50Ms: ps[0], P90Ms: ps[1], P99Ms: ps[2]}
			if d := measured[c].Seconds(); d > 0 {
				hc.PerSecond = float64(n) / d
			}
			out.Hops = append(out.Hops, hc)
		}
	}
	sort.Slice(out.Hops, func(i, j int) bool {
		a, b := out.Hops[i], out.Hops[j]
		return a.Case < b.Case || (a.Case == b.Case && a.Hops < b.Hops)
	})
	for k, n := range failures {
		out.Failures = append(out.Failures, FailureCount{Case: k[0], Reason: k[1], Count: n})
	}
	sort.Slice(out.Failures, func(i, j int) bool {
		a, b := out.Failures[i], out.Failures[j]
		return a.Case < b.Case || (a.Case == b.Case && (a.Count > b.Count || (a.Count == b.Count && a.Reason < b.Reason)))
	})
	return out
}
