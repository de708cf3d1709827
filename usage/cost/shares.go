package cost

import (
	"sort"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/usage"
)

// shares sets the harness's and the sampler's CPU as a share of all nodes'
// CPU. Rates, not totals, so actors sampled over slightly different
// intervals compare over the same time. The harness's share holds the
// docker-proxy actor's CPU: the proxy exists to carry the harness's calls
// (this network's proxy, this network's calls). One harness serves every
// network measured at once (a duet), so its CPU is a share of all their
// nodes': nodesFactor scales this case's nodes to theirs. A database
// server the nodes keep their state in (db=postgres) counts with the nodes:
// it does their storage work, which a node on SQLite or bbolt does itself.
func shares(c *Case, nodesFactor float64) {
	nodes, harness, sampler, proxy := 0.0, -1.0, -1.0, 0.0
	for _, a := range c.Actors {
		if a.Seconds == 0 {
			continue
		}
		if a.Role == usage.RoleNode || a.Role == usage.RoleDatabase {
			c.NodesCPUMsPerPayment += a.CPUMsPerPayment
			c.NodesSyncsPerPayment += a.SyncsPerPayment
		}
		switch a.Role {
		case usage.RoleNode, usage.RoleDatabase:
			nodes += a.CPUs
		case usage.RoleHarness:
			harness = max(harness, 0) + a.CPUs
		case usage.RoleProxy:
			proxy += a.CPUs
		case usage.RoleSampler:
			sampler = max(sampler, 0) + a.CPUs
		}
	}
	if nodes <= 0 {
		return
	}
	if harness >= 0 {
		c.ProxyShare = proxy / nodes
		c.HasHarnessShare, c.HarnessShare = true, harness/(nodes*max(nodesFactor, 1))+c.ProxyShare
	}
	if sampler >= 0 {
		c.HasSamplerShare, c.SamplerShare = true, sampler/nodes
	}
}

// concurrentNodes is how many times this case's nodes' CPU all measuring
// networks' nodes used over the case's measured harness intervals: 1 when
// the case ran alone (sequential), about 2 in a duet of like networks. A
// network counts where its own sample closing the span is a measured one
// (interleaved's idle network, between its iterations, does not). Each
// network's sampler reads the harness in its own series, tagged with its
// own case, so the spans are this case's network's readings.
func concurrentNodes(caseID string, series map[seriesKey][]usage.Sample) float64 {
	var spans [][2]usage.Sample
	for _, ss := range series {
		if len(ss) == 0 || ss[0].Role != usage.RoleHarness {
			continue
		}
		for i := 1; i < len(ss); i++ {
			p, s := ss[i-1], ss[i]
			if s.Case == caseID && s.Phase == result.Measure && s.Time.After(p.Time) && s.Time.Sub(p.Time) <= MaxGap {
				spans = append(spans, [2]usage.Sample{p, s})
			}
		}
	}
	own, all := 0.0, 0.0
	for _, ss := range series {
		if len(ss) == 0 || ss[0].Role != usage.RoleNode {
			continue
		}
		for _, sp := range spans {
			from, to := sp[0].Time, sp[1].Time
			closing := sampleClosing(ss, to)
			if closing == nil || closing.Phase != result.Measure {
				continue
			}
			c := cpuBetween(ss, from, to)
			all += c
			if closing.Case == caseID {
				own += c
			}
		}
	}
	if own <= 0 {
		return 1
	}
	return all / own
}

// sampleClosing is the series' first sample at or after t (nil: none).
func sampleClosing(ss []usage.Sample, t time.Time) *usage.Sample {
	i := sort.Search(len(ss), func(i int) bool { return !ss[i].Time.Before(t) })
	if i == len(ss) {
		return nil
	}
	return &ss[i]
}
