package cost

import (
	"fmt"
	"sort"
	"strings"
)

// Saturation thresholds of the verdict. A CPU quota throttles at 100%, and
// 1 s samples of a throttled actor read 90–100%, so 90% of the limit
// sustained over the measured iterations is saturation. The disk probe
// measures one writer syncing at queue depth 1, which concurrent writers
// can beat a little: 80% of its ceiling is already at the wall.
const (
	CPUSaturated  = 0.90
	HostSaturated = 0.90
	MemSaturated  = 0.90
	DiskSaturated = 0.80
	// ThrottleSaturated: a throttled period is runnable work stalled until
	// the next period (up to 100 ms for every payment in flight); an actor
	// whose quota ran out in a quarter of its periods is saturated in the
	// USE sense even when bursts keep its mean utilisation below 90%.
	ThrottleSaturated = 0.25
	boundCPU          = "cpu"
	boundHostCPU      = "host-cpu"
	boundMemory       = "memory"
	boundDisk         = "disk-sync"
	boundNone         = "none"
	boundUnknown      = "unknown"
	verdictNoSample   = "no resource samples in the measured iterations: no verdict"
)

// Verdict names the resource that limited a case, if any.
type Verdict struct {
	// Bound is cpu, host-cpu, memory, disk-sync, none or unknown.
	Bound string `json:"bound"`
	Actor string `json:"actor,omitempty"` // for cpu and memory
	// Text is the evidence then the conclusion, e.g. "bob CPU 98% of its
	// 0.5-CPU limit; disk at 30% of its sync ceiling: CPU-bound at bob".
	Text string `json:"text"`
	// Limit names what else bounds a case that saturated no sampled
	// resource (Bound none): its Text is also the end of Text.
	Limit *Limit `json:"limit,omitempty"`
}

type saturation struct {
	bound, actor, conclusion string
	level                    float64
	// waited: the samples saw work wait on this resource (a CPU quota
	// that throttled in ThrottleSaturated of its periods), not only its
	// utilisation near a ceiling that is itself an estimate (the disk
	// probe's one writer at queue depth 1).
	waited bool
}

// verdict applies the USE method's utilisation test to every resource the
// samples cover and names the most saturated one.
func verdict(c Case, hostCores int) Verdict {
	if len(c.Actors) == 0 {
		return Verdict{Bound: boundUnknown, Text: verdictNoSample}
	}
	var evidence []string
	var sat []saturation

	// The busiest CPU against its limit.
	var top *Actor
	for i, a := range c.Actors {
		if a.Limit > 0 && a.Seconds > 0 && (top == nil || cpuPressure(a) > cpuPressure(*top)) {
			top = &c.Actors[i]
		}
	}
	if top != nil {
		evidence = append(evidence, cpuEvidence(*top))
		if p := cpuPressure(*top); p >= CPUSaturated {
			sat = append(sat, saturation{boundCPU, top.Name, "CPU-bound at " + top.Name, p, throttledOften(*top)})
		}
	}
	// Every actor together against the host: actors without a quota share
	// its cores, so none alone may look busy while the machine is full.
	// Only sampled actors count: other load on the host is not seen.
	if hostCores > 0 {
		total := 0.0
		for _, a := range c.Actors {
			total += a.CPUs
		}
		if u := total / float64(hostCores); u >= HostSaturated {
			evidence = append(evidence, fmt.Sprintf("all actors %.2f of the host's %d cores (%.0f%%)", total, hostCores, 100*u))
			sat = append(sat, saturation{boundHostCPU, "", "CPU-bound: the host's cores are full", u, false})
		}
	}
	// Memory against a limit, only when close (else it is no evidence).
	for _, a := range c.Actors {
		if a.MemLimitBytes > 0 {
			if u := float64(a.RSSPeakBytes) / float64(a.MemLimitBytes); u >= MemSaturated {
				evidence = append(evidence, fmt.Sprintf("%s RSS %.0f%% of its %s limit", a.Name, 100*u, mib(a.MemLimitBytes)))
				sat = append(sat, saturation{boundMemory, a.Name, "memory-bound at " + a.Name, u, false})
			}
		}
	}
	// The disk's syncs against the probe.
	if cl := c.Ceiling; cl != nil {
		evidence = append(evidence, fmt.Sprintf("%s at %.0f%% of its sync ceiling", cl.Storage, 100*cl.Utilisation))
		if cl.Utilisation >= DiskSaturated {
			sat = append(sat, saturation{boundDisk, cl.Node, "disk-sync-bound (" + cl.Node + "'s syncs)", cl.Utilisation, false})
		}
	} else {
		evidence = append(evidence, "disk sync ceiling unknown ("+c.NoCeiling+")")
	}
	text := strings.Join(evidence, "; ")
	if len(sat) == 0 {
		return Verdict{Bound: boundNone, Text: text + ": no sampled resource saturated"}
	}
	// Seen waiting outranks near a ceiling; among equals the fuller wins.
	// The runners-up are named: lifting the bound moves it to them.
	sort.SliceStable(sat, func(i, j int) bool {
		if sat[i].waited != sat[j].waited {
			return sat[i].waited
		}
		return sat[i].level > sat[j].level
	})
	conclusion := sat[0].conclusion
	if len(sat) > 1 {
		var also []string
		for _, s := range sat[1:] {
			also = append(also, s.conclusion)
		}
		conclusion += " (also saturated: " + strings.Join(also, "; ") + ")"
	}
	v := Verdict{Bound: sat[0].bound, Text: text + ": " + conclusion}
	if sat[0].bound == boundCPU || sat[0].bound == boundMemory {
		v.Actor = sat[0].actor
	}
	return v
}

// cpuPressure orders actors by CPU saturation: utilisation of the limit,
// raised to the saturation threshold when the quota throttled the actor in
// ThrottleSaturated of its periods.
func cpuPressure(a Actor) float64 {
	p := a.Utilisation
	if throttledOften(a) {
		p = max(p, CPUSaturated)
	}
	return p
}

// throttledOften: the actor's quota ran out in ThrottleSaturated of its
// periods, so its work waited for CPU.
func throttledOften(a Actor) bool {
	return !a.LimitIsHost && a.ThrottleKnown && a.Throttled >= ThrottleSaturated
}

func cpuEvidence(a Actor) string {
	if a.LimitIsHost {
		return fmt.Sprintf("%s CPU %.0f%% of the host's %g cores (no limit)", a.Name, 100*a.Utilisation, a.Limit)
	}
	s := fmt.Sprintf("%s CPU %.0f%% of its %g-CPU limit", a.Name, 100*a.Utilisation, a.Limit)
	if a.ThrottleKnown && a.Throttled > 0 {
		s += fmt.Sprintf(", throttled in %.0f%% of its periods", 100*a.Throttled)
	}
	return s
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
