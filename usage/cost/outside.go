package cost

import (
	"fmt"
	"sort"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/usage"
)

// Busy-machine thresholds. Outside CPU is what processes other than the
// run's actors and the harness used during the measured iterations; a case
// is "busy" when its mean over those iterations is above
// max(BusyCores, BusyHostShare × the host's cores). A quarter of a core is
// far above the accounting noise (10 ms ticks of every actor per 1 s
// interval, and the kernel's own loopback work: a few hundredths of a core
// on an idle machine) and, on the 2–8-core hosts this runs on, 3–12% of the
// machine taken from the nodes. On larger hosts 5% of the cores scales the
// bar with what the run can lose before it competes for a core.
const (
	BusyCores     = 0.25
	BusyHostShare = 0.05
)

// Outside is the host CPU used outside the run during a case's measured
// iterations: the host's busy CPU (/proc/stat) minus every run actor's and
// the harness's over the same intervals.
type Outside struct {
	// Cores is the mean outside CPU in cores; HostShare is Cores over the
	// host's cores. Slightly negative values are sampling skew.
	Cores     float64 `json:"cores"`
	HostShare float64 `json:"host_share"`
	HostCores float64 `json:"host_cores"`
	// HostCPUSeconds and RunCPUSeconds are the two sides, over Seconds of
	// measured intervals of the host pseudo-actor.
	HostCPUSeconds float64 `json:"host_cpu_seconds"`
	RunCPUSeconds  float64 `json:"run_cpu_seconds"`
	Seconds        float64 `json:"sampled_seconds"`
	// Busy says Cores was over the threshold: the case's figures and
	// verdict are unreliable.
	Busy bool `json:"busy,omitempty"`
}

// BusyThreshold is the outside CPU (cores) above which a host of hostCores is busy.
func BusyThreshold(hostCores float64) float64 { return max(BusyCores, BusyHostShare*hostCores) }

// Warning is the report's line for a busy case ("" when not busy).
func (o *Outside) Warning(caseID string) string {
	if o == nil || !o.Busy {
		return ""
	}
	return fmt.Sprintf("busy machine: other processes used %.2f cores (%.0f%% of the host) during the measured iterations of %s; its figures and verdict are unreliable",
		o.Cores, 100*o.HostShare, caseID)
}

// outside computes a case's outside CPU from the host samples tagged with
// it. Each host interval (p, s] in a measured iteration is compared with
// the CPU every other series used over the same span, whichever network
// sampled it: two networks measured at once each write their own host and
// actor samples, and a case's host intervals must lose both networks'
// actors. The harness is one process sampled by every network: it counts
// once. Limitation: an actor of another network that was not being sampled
// (its case ran with ResourceSampling=off) counts as outside; so does an
// actor named alike in two networks that is one process (only the harness
// is known to be).
func outside(ci CaseInput, series map[seriesKey][]usage.Sample, hostCores int) (*Outside, string) {
	var o Outside
	for k, ss := range series {
		if k.actor != usage.RoleHost || len(ss) == 0 || ss[0].Role != usage.RoleHost {
			continue
		}
		for i := 1; i < len(ss); i++ {
			p, s := ss[i-1], ss[i]
			dt := s.Time.Sub(p.Time)
			if s.Case != ci.ID || s.Phase != result.Measure || dt <= 0 || dt > MaxGap || s.CPUSeconds() < p.CPUSeconds() {
				continue
			}
			o.Seconds += dt.Seconds()
			o.HostCPUSeconds += s.CPUSeconds() - p.CPUSeconds()
			o.RunCPUSeconds += runCPU(series, p.Time, s.Time)
			if s.CPULimit > 0 {
				o.HostCores = s.CPULimit
			}
		}
	}
	if o.Seconds == 0 {
		return nil, ""
	}
	for k, ss := range series {
		if k.actor != usage.RoleHost && len(ss) > 0 && ss[0].Source == usage.SourceDockerStats {
			// The engine's stats API may be a remote engine's: its CPU is
			// not this host's, so the difference would mean nothing.
			return nil, fmt.Sprintf("outside CPU not computed: %s was read from the engine's stats API, which may be another host's", k.actor)
		}
	}
	if hostCores > 0 {
		o.HostCores = float64(hostCores)
	}
	o.Cores = (o.HostCPUSeconds - o.RunCPUSeconds) / o.Seconds
	if o.HostCores > 0 {
		o.HostShare = o.Cores / o.HostCores
	}
	o.Busy = o.Cores > BusyThreshold(o.HostCores)
	return &o, ""
}

// runCPU is the CPU every run series used over [from, to]: the actors of
// every network, and the harness once (its largest reading: each network's
// series covers the span differently).
func runCPU(series map[seriesKey][]usage.Sample, from, to time.Time) float64 {
	total, harness := 0.0, 0.0
	for k, ss := range series {
		if k.actor == usage.RoleHost {
			continue
		}
		c := cpuBetween(ss, from, to)
		if len(ss) > 0 && ss[0].Role == usage.RoleHarness {
			harness = max(harness, c)
			continue
		}
		total += c
	}
	return total + harness
}

// cpuBetween is the CPU a series' cumulative counter gained over
// [from, to], each sample interval pro rata to its overlap with the span
// (samples of other networks fall at other instants). A counter going
// backwards (a restart) takes the new value as the delta, as credit does.
func cpuBetween(ss []usage.Sample, from, to time.Time) float64 {
	total := 0.0
	// The first interval that ends after from: long soaks have thousands
	// of samples per series and as many host intervals.
	first := max(1, sort.Search(len(ss), func(i int) bool { return ss[i].Time.After(from) }))
	for i := first; i < len(ss) && !ss[i-1].Time.After(to); i++ {
		a, b := ss[i-1], ss[i]
		span := b.Time.Sub(a.Time)
		lo, hi := maxTime(a.Time, from), minTime(b.Time, to)
		if span <= 0 || !hi.After(lo) {
			continue
		}
		d, _ := cpuDelta(a, b)
		total += d * hi.Sub(lo).Seconds() / span.Seconds()
	}
	return total
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
