// Package cost turns a run's resource samples (usage.Sample: cumulative
// counters per actor, about once a second) into what each payment cost each
// actor during the measured iterations, the disk's sync ceiling, and which
// resource limited the throughput (the USE method: each actor's CPU against
// its limit, memory against its limit, the disk's sync rate against the
// probe's). Pure functions of samples and payment records.
package cost

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/lnbench/lnbench/record/chanstate"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/usage"
)

// Param names declared by the sampler's scenario params; matched by name
// here so this package depends on no harness code.
const (
	ParamStorage          = "Storage"          // disk (default) | tmpfs
	ParamResourceSampling = "ResourceSampling" // on (default) | off
	DefaultStorage        = "disk"
)

// MaxGap is the longest interval between two samples of one actor that is
// still credited. A longer one (a stalled or restarted collector) is left
// out with the payments that ended in it, so per-payment figures stay
// unbiased; the case's notes say how much time was lost.
const MaxGap = 5 * time.Second

// CaseInput is what the payment analysis knows of one case.
type CaseInput struct {
	ID      string
	Storage string // the Storage param; "" is DefaultStorage
	// PaymentsPerSec is the measured throughput from the payments stream
	// (analysis.Case.PaymentsPerSec), printed beside the ceiling.
	PaymentsPerSec float64
	// Group is shared by the cases that differ only by Concurrency ("":
	// none); Concurrency is the closed loop's workers (0: open loop); P50Ms
	// the median latency. The bound naming compares such cases.
	Group       string
	Concurrency int
	P50Ms       float64
	// IterationsPerSec are the measured iterations' payments/s: a gain
	// counts only when every iteration of the higher concurrency beat
	// every one of the lower (with 3 each, a one-sided rank test at 5%).
	IterationsPerSec []float64
	// PerLaunch is the measured iterations of one launch (analysis.Shape's):
	// launch L's iterations are numbered from L·PerLaunch. 0 is one launch.
	PerLaunch int
}

// Input is everything Analyze reads.
type Input struct {
	Cases     []CaseInput
	Samples   []usage.Sample
	Payments  []result.Record
	HostCores int // the limit of actors without a CPU quota
	Probes    []usage.DiskProbe
	Channels  []chanstate.Reading // nodes' channel readings (channels.jsonl)
}

// Actor is one actor's cost over a case's measured iterations.
type Actor struct {
	Name   string `json:"name"`
	Role   string `json:"role"`
	Source string `json:"source"`
	// Seconds is the sampled measured time: the summed intervals between
	// consecutive samples whose later sample falls in a measured iteration.
	Seconds float64 `json:"sampled_seconds"`
	// Payments are the case's successful measured payments that ended
	// inside those intervals: the denominator of every per-payment figure.
	Payments   int     `json:"payments"`
	CPUSeconds float64 `json:"cpu_seconds"`
	// CPUMsPerPayment is CPUSeconds×1000 / Payments (0 without payments).
	CPUMsPerPayment float64 `json:"cpu_ms_per_payment"`
	// CPUs is the mean number of cores used: CPUSeconds / Seconds.
	CPUs float64 `json:"cpus"`
	// Limit is the actor's CPU quota, else the host's cores (LimitIsHost).
	Limit       float64 `json:"cpu_limit"`
	LimitIsHost bool    `json:"cpu_limit_is_host,omitempty"`
	// Utilisation is CPUs / Limit (0 when no limit is known).
	Utilisation float64 `json:"cpu_utilisation"`
	// Throttled is the share of the quota's periods in which the actor ran
	// out of quota (saturation: work waited for CPU); ThrottleKnown says
	// the samples had a quota's period counts.
	ThrottleKnown bool    `json:"cpu_throttle_known,omitempty"`
	Throttled     float64 `json:"cpu_throttled,omitempty"`
	// RSSPeakBytes is the largest RSS sampled during measured iterations.
	RSSPeakBytes  int64 `json:"rss_peak_bytes"`
	MemLimitBytes int64 `json:"mem_limit_bytes,omitempty"`
	// Syncs figures cover the intervals where a sync counter was attached
	// at both ends; SyncsCounted is false when there were none.
	SyncsCounted    bool    `json:"syncs_counted"`
	Syncs           int64   `json:"syncs,omitempty"`
	SyncsPerPayment float64 `json:"syncs_per_payment,omitempty"`
	SyncsPerSec     float64 `json:"syncs_per_second,omitempty"`
	WriteBytes      int64   `json:"write_bytes"`
	// WriteBytesPerPayment is block I/O written per payment, over the
	// intervals whose samples had a block-I/O source at both ends.
	WriteBytesPerPayment float64 `json:"write_bytes_per_payment"`
	// WriteSource is where the written bytes came from (usage.IOCgroup,
	// IOProc, IOEngine; "" for streams written before sources were
	// recorded). WritesNotMeasurable says no interval had a source (every
	// sample said usage.IONone): WriteBytes and WriteBytesPerPayment are
	// then 0 and mean "not measurable on this host", not "nothing written".
	WriteSource         string `json:"write_source,omitempty"`
	WritesNotMeasurable bool   `json:"write_bytes_not_measurable,omitempty"`
	// DBGrowthBytes is DataBytes at the case's last sample that has it
	// minus at its first; DBGrowthKnown says both existed. It spans the
	// whole case, so per payment it divides by every successful payment
	// of the case, warm-up included (DBPayments).
	DBGrowthKnown           bool    `json:"db_growth_known,omitempty"`
	DBGrowthBytes           int64   `json:"db_growth_bytes,omitempty"`
	DBPayments              int     `json:"db_payments,omitempty"`
	DBGrowthBytesPerPayment float64 `json:"db_growth_bytes_per_payment,omitempty"`
	// Intervals is how many sample intervals were credited; Resets counts
	// counters that went backwards (a restart: the new value is the delta).
	Intervals int `json:"intervals"`
	Resets    int `json:"counter_resets,omitempty"`
	// Launches are the per-payment figures launch by launch (Launches);
	// nil when the case ran one launch, whose figures are the ones above.
	Launches []LaunchCost `json:"launches,omitempty"`
}

// Ceiling is the disk's sync ceiling of a case: the probe's syncs/s over
// the busiest node's syncs per payment, as payments/s.
type Ceiling struct {
	Storage          string  `json:"storage"`
	ProbeSyncsPerSec float64 `json:"probe_syncs_per_second"`
	Node             string  `json:"busiest_node"`
	SyncsPerPayment  float64 `json:"syncs_per_payment"`
	PaymentsPerSec   float64 `json:"payments_per_second"`
	// Measured is the case's payments/s; Utilisation is Measured / PaymentsPerSec.
	Measured    float64 `json:"measured_payments_per_second"`
	Utilisation float64 `json:"utilisation"`
}

// Case is one case's resource analysis.
type Case struct {
	ID     string  `json:"id"`
	Actors []Actor `json:"actors"`
	// HarnessShare is the harness's CPU as a share of all nodes' CPU over
	// the same measured time (goal: at most HarnessGoal); SamplerShare the
	// same for the sampler. Zero with Has*=false when either side is missing.
	HasHarnessShare bool    `json:"has_harness_share,omitempty"`
	HarnessShare    float64 `json:"harness_share,omitempty"`
	HasSamplerShare bool    `json:"has_sampler_share,omitempty"`
	// ProxyShare is the part of HarnessShare that Docker's userland proxy
	// (the docker-proxy actor, usage.RoleProxy) used: it carries only the
	// harness's calls through the published ports, so it is the harness's
	// cost on the compose backend. 0 where there is none (local, swarm).
	ProxyShare float64 `json:"proxy_share,omitempty"`
	// NodesCPUMsPerPayment and NodesSyncsPerPayment add up the nodes'
	// per-payment figures (syncs over the nodes that had a counter).
	NodesCPUMsPerPayment float64  `json:"nodes_cpu_ms_per_payment,omitempty"`
	NodesSyncsPerPayment float64  `json:"nodes_syncs_per_payment,omitempty"`
	SamplerShare         float64  `json:"sampler_share,omitempty"`
	Ceiling              *Ceiling `json:"sync_ceiling,omitempty"`
	// NoCeiling says why there is no ceiling when Ceiling is nil.
	NoCeiling string `json:"no_ceiling,omitempty"`
	// Channels is what the measured iterations did to the channels: nil
	// when no node read its channels.
	Channels *ChannelUse `json:"channel_use,omitempty"`
	// Outside is the CPU other processes used meanwhile (nil: no host
	// samples, as in streams written before the host was sampled).
	Outside *Outside `json:"outside_cpu,omitempty"`
	Verdict Verdict  `json:"verdict"`
	Notes   []string `json:"notes,omitempty"`
	// Timeline is the per-interval utilisation, for plots (not in JSON:
	// the samples are in resources.jsonl).
	Timeline []Point `json:"-"`
}

// Point is one credited sample interval of one actor.
type Point struct {
	Actor, Role string
	End         time.Time
	Seconds     float64
	CPUs        float64 // cores used over the interval
	Limit       float64 // as Actor.Limit
	SyncsPerSec float64 // -1: not counted
}

// HarnessGoal is the harness's CPU budget as a share of the nodes' CPU.
const HarnessGoal = 0.02

// Analyze computes one Case per input case, in order. A case without any
// sample in its measured iterations has no actors and an "unknown" verdict.
func Analyze(in Input) []Case {
	series := seriesOf(in.Samples)
	var out []Case
	for _, ci := range in.Cases {
		out = append(out, analyzeCase(in, ci, series))
	}
	nameBounds(out, in.Cases)
	return out
}

type seriesKey struct{ network, actor string }

// seriesOf groups samples by (network, actor), each in time order.
func seriesOf(samples []usage.Sample) map[seriesKey][]usage.Sample {
	out := map[seriesKey][]usage.Sample{}
	for _, s := range samples {
		k := seriesKey{s.Network, s.Actor}
		out[k] = append(out[k], s)
	}
	for _, ss := range out {
		sort.SliceStable(ss, func(i, j int) bool { return ss[i].Time.Before(ss[j].Time) })
	}
	return out
}

// acc accumulates one actor's credited intervals in one case.
type acc struct {
	Actor
	syncSeconds   float64
	syncPayments  int
	syncMissing   int // intervals without a counter at both ends
	gaps          int
	gapSeconds    float64
	dbFirst       usage.Sample
	dbLast        usage.Sample
	dbSeen        int
	periods       int64 // quota periods and throttled ones, over credited intervals
	throttled     int64
	writeKnown    int // intervals with the same block-I/O source at both ends
	writePayments int
}

func analyzeCase(in Input, ci CaseInput, series map[seriesKey][]usage.Sample) Case {
	c := Case{ID: ci.ID}
	// Successful payments of the case: measured ones by end time (the
	// per-payment denominators), and all of them (DB growth).
	var ends []time.Time
	allOK := 0
	for _, r := range in.Payments {
		if r.ID() != ci.ID || r.Status != result.Succeeded {
			continue
		}
		allOK++
		if r.Phase == result.Measure {
			ends = append(ends, r.End)
		}
	}
	slices.SortFunc(ends, func(a, b time.Time) int { return a.Compare(b) })
	endedIn := func(from, to time.Time) int { // payments with from < End ≤ to
		lo, _ := slices.BinarySearchFunc(ends, from, func(e, t time.Time) int {
			if e.After(t) {
				return 1
			}
			return -1
		})
		hi, _ := slices.BinarySearchFunc(ends, to, func(e, t time.Time) int {
			if e.After(t) {
				return 1
			}
			return -1
		})
		return hi - lo
	}

	accs := map[string]*acc{}
	var order []string
	keys := sortedKeys(series)
	for _, k := range keys {
		ss := series[k]
		for i, s := range ss {
			if s.Case != ci.ID || s.Role == usage.RoleHost {
				continue // the host is no actor: see outside
			}
			a := accs[s.Actor]
			if a == nil {
				a = &acc{Actor: Actor{Name: s.Actor, Role: s.Role, Source: s.Source}}
				accs[s.Actor] = a
				order = append(order, s.Actor)
			}
			if s.DataBytes > 0 {
				if a.dbSeen == 0 || s.Time.Before(a.dbFirst.Time) {
					a.dbFirst = s
				}
				if a.dbSeen == 0 || !s.Time.Before(a.dbLast.Time) {
					a.dbLast = s
				}
				a.dbSeen++
			}
			if s.Phase != result.Measure || i == 0 {
				continue
			}
			credit(a, ss[i-1], s, endedIn(ss[i-1].Time, s.Time), in.HostCores, &c)
		}
	}
	for _, name := range order {
		a := accs[name]
		if a.dbSeen >= 2 && a.dbLast.Time.After(a.dbFirst.Time) {
			a.DBGrowthKnown, a.DBGrowthBytes, a.DBPayments = true, a.dbLast.DataBytes-a.dbFirst.DataBytes, allOK
			if allOK > 0 {
				a.DBGrowthBytesPerPayment = float64(a.DBGrowthBytes) / float64(allOK)
			}
		}
		if a.Intervals == 0 {
			// Tagged with the case but never inside a measured iteration
			// (a collector that stopped early, or a gap over MaxGap).
			c.Notes = append(c.Notes, fmt.Sprintf("%s: no sample intervals in the measured iterations; left out of the table", name))
			continue
		}
		finish(a)
		if a.gaps > 0 {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: %d sample gap(s) longer than %v left out (%.1f s, with the payments that ended in them)", name, a.gaps, MaxGap, a.gapSeconds))
		}
		if a.Resets > 0 {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: %d counter reset(s) (a counter went backwards: restarted actor or collector); the value after a reset is taken as the delta", name, a.Resets))
		}
		if a.writeKnown > 0 && a.writeKnown < a.Intervals {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: written bytes read in %d of %d sampled intervals (no block-I/O source, or a change of source, in the others); written/payment is over those only", name, a.writeKnown, a.Intervals))
		}
		if a.SyncsCounted && a.syncMissing > 0 {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: syncs counted in %d of %d sampled intervals; syncs/payment is over those only", name, a.Intervals-a.syncMissing, a.Intervals))
		}
		c.Actors = append(c.Actors, a.Actor)
	}
	sortActors(c.Actors)
	withLaunches(c.Actors, launchCosts(in, ci, series))
	shares(&c, concurrentNodes(ci.ID, series))
	if n := idleNote(ci.ID, series); n != "" {
		c.Notes = append(c.Notes, n)
	}
	ceiling(&c, ci, in.Probes)
	c.Verdict = verdict(c, in.HostCores)
	c.Channels = channelUse(ci.ID, in.Channels, in.Payments)
	var why string
	if c.Outside, why = outside(ci, series, in.HostCores); why != "" {
		c.Notes = append(c.Notes, why)
	}
	return c
}

// credit adds the interval (p, s] to a.
func credit(a *acc, p, s usage.Sample, payments, hostCores int, c *Case) {
	dt := s.Time.Sub(p.Time)
	if dt <= 0 {
		return
	}
	if dt > MaxGap {
		a.gaps++
		a.gapSeconds += dt.Seconds()
		return
	}
	// A changed source means different counters: treat as a reset.
	sameSource := p.Source == s.Source
	dCPU, reset := cpuDelta(p, s)
	// Written bytes count where both ends read the same block-I/O source:
	// "none" is no reading, and a switch (cgroup ↔ processes) changes
	// what is counted, so that interval's writes are left out.
	if p.IOSource == s.IOSource && s.IOSource != usage.IONone {
		dWrite := s.WriteBytes - p.WriteBytes
		if !sameSource || dWrite < 0 {
			dWrite, reset = s.WriteBytes, true
		}
		a.WriteBytes += dWrite
		a.writeKnown++
		a.writePayments += payments
		a.WriteSource = s.IOSource
	}
	if reset {
		a.Resets++
	}
	a.Intervals++
	a.Seconds += dt.Seconds()
	a.Payments += payments
	a.CPUSeconds += dCPU
	a.RSSPeakBytes = max(a.RSSPeakBytes, s.RSSBytes)
	if s.MemLimitBytes > 0 {
		a.MemLimitBytes = s.MemLimitBytes
	}
	if dp, dt := s.CPUPeriods-p.CPUPeriods, s.CPUThrottled-p.CPUThrottled; sameSource && s.CPUPeriods > 0 && dp >= 0 && dt >= 0 {
		a.periods += dp
		a.throttled += dt
	}
	if s.CPULimit > 0 {
		a.Limit, a.LimitIsHost = s.CPULimit, false
	} else if a.Limit == 0 && hostCores > 0 {
		a.Limit, a.LimitIsHost = float64(hostCores), true
	}
	syncsPerSec := -1.0
	if p.SyncsCounted && s.SyncsCounted {
		d := s.Syncs - p.Syncs
		if d < 0 {
			d = s.Syncs // counter re-attached
		}
		a.SyncsCounted = true
		a.Syncs += d
		a.syncSeconds += dt.Seconds()
		a.syncPayments += payments
		syncsPerSec = float64(d) / dt.Seconds()
	} else {
		a.syncMissing++
	}
	c.Timeline = append(c.Timeline, Point{Actor: a.Name, Role: a.Role, End: s.Time, Seconds: dt.Seconds(),
		CPUs: dCPU / dt.Seconds(), Limit: a.Limit, SyncsPerSec: syncsPerSec})
}

func finish(a *acc) {
	if a.Payments > 0 {
		a.CPUMsPerPayment = 1000 * a.CPUSeconds / float64(a.Payments)
	}
	if a.writePayments > 0 {
		a.WriteBytesPerPayment = float64(a.WriteBytes) / float64(a.writePayments)
	}
	a.WritesNotMeasurable = a.writeKnown == 0
	if a.Seconds > 0 {
		a.CPUs = a.CPUSeconds / a.Seconds
	}
	if a.Limit > 0 {
		a.Utilisation = a.CPUs / a.Limit
	}
	if a.periods > 0 {
		a.ThrottleKnown = true
		a.Throttled = float64(a.throttled) / float64(a.periods)
	}
	if a.SyncsCounted {
		if a.syncPayments > 0 {
			a.SyncsPerPayment = float64(a.Syncs) / float64(a.syncPayments)
		}
		if a.syncSeconds > 0 {
			a.SyncsPerSec = float64(a.Syncs) / a.syncSeconds
		}
	}
}

// sortActors puts nodes first (by name), then a database server, the
// chain, the sampler and the harness.
func sortActors(as []Actor) {
	rank := map[string]int{usage.RoleNode: 0, usage.RoleDatabase: 1, usage.RoleChain: 2, usage.RoleSampler: 3, usage.RoleHarness: 4, usage.RoleProxy: 5}
	sort.SliceStable(as, func(i, j int) bool {
		ri, rj := rank[as[i].Role], rank[as[j].Role]
		if ri != rj {
			return ri < rj
		}
		return as[i].Name < as[j].Name
	})
}

// ceiling sets the disk's sync ceiling from the probe of the case's storage
// and the node with the most syncs per payment, or the database server a
// db=postgres node leaves its syncs to.
func ceiling(c *Case, ci CaseInput, probes []usage.DiskProbe) {
	storage := ci.Storage
	if storage == "" {
		storage = DefaultStorage
	}
	var busiest *Actor
	for i, a := range c.Actors {
		if (a.Role == usage.RoleNode || a.Role == usage.RoleDatabase) && a.SyncsCounted && a.SyncsPerPayment > 0 && (busiest == nil || a.SyncsPerPayment > busiest.SyncsPerPayment) {
			busiest = &c.Actors[i]
		}
	}
	var probe *usage.DiskProbe
	for i, p := range probes {
		if p.Storage == storage || p.Storage == "" && storage == DefaultStorage {
			probe = &probes[i]
		}
	}
	switch {
	case len(c.Actors) == 0:
		c.NoCeiling = "no resource samples in the measured iterations"
	case busiest == nil:
		c.NoCeiling = "no node's syncs were counted"
	case probe == nil:
		c.NoCeiling = fmt.Sprintf("no disk probe for storage %q", storage)
	case probe.SyncsPerSecond <= 0:
		c.NoCeiling = fmt.Sprintf("the disk probe for storage %q measured no syncs", storage)
	default:
		cl := &Ceiling{Storage: storage, ProbeSyncsPerSec: probe.SyncsPerSecond, Node: busiest.Name,
			SyncsPerPayment: busiest.SyncsPerPayment, PaymentsPerSec: probe.SyncsPerSecond / busiest.SyncsPerPayment, Measured: ci.PaymentsPerSec}
		cl.Utilisation = cl.Measured / cl.PaymentsPerSec
		c.Ceiling = cl
	}
}
