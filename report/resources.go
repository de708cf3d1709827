package report

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/chanstate"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/stats"
	"github.com/lnbench/lnbench/usage"
	"github.com/lnbench/lnbench/usage/cost"
)

// SamplingOverhead compares a case run with resource sampling on and off,
// its other params equal: what the measurement costs the throughput.
type SamplingOverhead struct {
	Case    string `json:"case"` // the params but ResourceSampling
	On, Off string `json:"-"`    // the two case ids
	// OnPaymentsPerSec / OffPaymentsPerSec is Ratio (below 1: sampling slows).
	OnPaymentsPerSec  float64 `json:"on_payments_per_second"`
	OffPaymentsPerSec float64 `json:"off_payments_per_second"`
	Ratio             float64 `json:"ratio"`
	// Change and P are stats.Compare's on the per-iteration payments/s, as
	// `lnbench compare` tests them; Verdict is within noise, slower (with
	// sampling), faster, inconclusive or too few samples.
	Change  float64 `json:"median_change"`
	P       float64 `json:"p"`
	Verdict string  `json:"verdict"`
}

// LoadResources recomputes rep.Resources from dir's resources.jsonl (none
// when the file is missing). Call it after Summarize: it reads the cases.
// An unreadable stream is an analysis warning, not an error: the payment
// reports stand without it.
func LoadResources(dir string, rep *Report, recs []result.Record) {
	samples, err := usage.Load(filepath.Join(dir, record.ResourcesFile))
	if err != nil {
		rep.Resources = nil
		rep.AnalysisWarnings = append(rep.AnalysisWarnings, fmt.Sprintf("resource samples not analysed: %v", err))
		return
	}
	readings, err := chanstate.Load(filepath.Join(dir, record.ChannelsFile))
	if err != nil {
		rep.AnalysisWarnings = append(rep.AnalysisWarnings, fmt.Sprintf("channel readings not analysed: %v", err))
	}
	SummarizeResources(rep, samples, recs, readings...)
}

// SummarizeResources sets rep.Resources, one per case of the table, from
// the samples, payment records and the nodes' channel readings.
func SummarizeResources(rep *Report, samples []usage.Sample, recs []result.Record, readings ...chanstate.Reading) {
	rep.Resources = nil
	if len(samples) == 0 {
		return
	}
	in := cost.Input{Samples: samples, Payments: recs, HostCores: rep.Env.Cores, Probes: rep.DiskProbes, Channels: readings}
	for _, c := range rep.Cases {
		storage, _ := paramOf(c.Params, cost.ParamStorage)
		group, conc := sweepGroup(c)
		ci := cost.CaseInput{ID: c.ID, Storage: storage, PaymentsPerSec: c.PaymentsPerSec, Group: group, Concurrency: conc, P50Ms: c.Latency.P50,
			PerLaunch: rep.perLaunch()}
		for _, it := range c.Iterations {
			if it.Complete {
				ci.IterationsPerSec = append(ci.IterationsPerSec, it.PaymentsPerSec)
			}
		}
		in.Cases = append(in.Cases, ci)
	}
	rep.Resources = cost.Analyze(in)
	markBusyRatios(rep)
	fillCostVerdicts(rep)
}

// BusyNote marks a verdict against the baseline whose case, or its
// baseline case, ran while other processes kept the machine busy.
const BusyNote = "unreliable: busy machine"

// markBusyRatios notes BusyNote on every Ratio whose case or baseline case
// was busy; the verdict itself is computed as ever. Called after
// Summarize's fillRatios (the ratios exist) and idempotent.
func markBusyRatios(rep *Report) {
	busy := map[string]bool{}
	for _, c := range rep.Resources {
		busy[c.ID] = c.Outside != nil && c.Outside.Busy
	}
	label := rep.BaselineLabel()
	base := map[string]string{} // case identity across specs → the baseline case's id
	for _, c := range rep.Cases {
		if c.Node == label {
			base[withoutNode(c.Params)] = c.ID
		}
	}
	for i, c := range rep.Cases {
		rt := c.Ratio
		// The baseline's own row holds no verdict to doubt.
		if rt == nil || rt.Unreliable || c.Node == label || !busy[c.ID] && !busy[base[withoutNode(c.Params)]] {
			continue
		}
		rt.Unreliable = true
		rt.Notes = append(rt.Notes, BusyNote+" (see the warnings)")
		rep.Cases[i].Ratio = rt
	}
}

// sweepGroup is the case's params but Concurrency, and its concurrency:
// cases of one group differ only by it. Open-loop cases (Rate) have none.
func sweepGroup(c Row) (string, int) {
	if _, open := paramOf(c.Params, "Rate"); open {
		return "", 0
	}
	v, ok := paramOf(c.Params, "Concurrency")
	conc, err := strconv.Atoi(v)
	if !ok || err != nil {
		return "", 0
	}
	parts := []string{"Node=" + c.Node}
	for _, p := range c.Params {
		if p.Name != "Concurrency" {
			parts = append(parts, p.Name+"="+p.Value)
		}
	}
	return strings.Join(parts, "/"), conc
}

// ResourcesOf is the resource analysis of case id, if any.
func (r Report) ResourcesOf(id string) (cost.Case, bool) {
	for _, c := range r.Resources {
		if c.ID == id {
			return c, true
		}
	}
	return cost.Case{}, false
}

func paramOf(params []scenario.Value, name string) (string, bool) {
	for _, v := range params {
		if v.Name == name {
			return v.Value, true
		}
	}
	return "", false
}

// samplingOff tells whether a case ran with resource sampling off.
func samplingOff(params []scenario.Value) bool {
	v, _ := paramOf(params, cost.ParamResourceSampling)
	return v == "off"
}

// fillSamplingOverhead pairs every case run with ResourceSampling=on with
// the case of the same other params run with it off.
func fillSamplingOverhead(r *Report) {
	r.SamplingOverhead = nil
	rest := func(c Row) string {
		var parts []string
		for _, v := range c.Params {
			if v.Name != cost.ParamResourceSampling {
				parts = append(parts, v.Name+"="+v.Value)
			}
		}
		return strings.Join(parts, "/")
	}
	off := map[string]Row{}
	for _, c := range r.Cases {
		if samplingOff(c.Params) {
			off[rest(c)] = c
		}
	}
	for _, c := range r.Cases {
		v, ok := paramOf(c.Params, cost.ParamResourceSampling)
		if !ok || v == "off" {
			continue
		}
		o, ok := off[rest(c)]
		if !ok {
			continue
		}
		so := SamplingOverhead{Case: rest(c), On: c.ID, Off: o.ID, OnPaymentsPerSec: c.PaymentsPerSec, OffPaymentsPerSec: o.PaymentsPerSec, P: 1}
		if o.PaymentsPerSec > 0 {
			so.Ratio = c.PaymentsPerSec / o.PaymentsPerSec
		}
		_, offPPS := samples(o)
		_, onPPS := samples(c)
		cmp := stats.Compare(offPPS, onPPS, DefaultAlpha, DefaultNoise, false)
		so.Change = cmp.Change
		if !math.IsNaN(cmp.P) {
			so.P = cmp.P
		}
		so.Verdict = verdictOf(cmp)
		r.SamplingOverhead = append(r.SamplingOverhead, so)
	}
}

// OverheadLine sums up one on/off pair.
func OverheadLine(o SamplingOverhead) string {
	return fmt.Sprintf("%s: payments/s with sampling on / off = %.3f (%.2f vs %.2f), %s (Mann-Whitney p = %.2g on the per-iteration payments/s, noise threshold %g%%)",
		o.Case, o.Ratio, o.OnPaymentsPerSec, o.OffPaymentsPerSec, o.Verdict, o.P, 100*DefaultNoise)
}

// ResourceSection is a case's resources as every exporter shows them: a
// table with only the informative columns, the lines under it (ceiling,
// verdict, harness share, why a column is missing, notes) and the legend.
type ResourceSection struct {
	Case   string
	Table  Table
	Lines  []string
	Legend []string
}

// ResourceSections builds one section per case of the table: a case run
// with sampling off, or without samples, gets a line saying so.
func ResourceSections(r Report) []ResourceSection {
	if len(r.Resources) == 0 && len(r.SamplingOverhead) == 0 {
		return nil
	}
	var out []ResourceSection
	for _, c := range r.Cases {
		s := ResourceSection{Case: c.ID}
		rc, ok := r.ResourcesOf(c.ID)
		switch {
		case samplingOff(c.Params):
			s.Lines = []string{"Resource sampling was off for this case (ResourceSampling=off): no figures."}
		case !ok || len(rc.Actors) == 0:
			s.Lines = []string{"No resource samples in this case's measured iterations."}
		default:
			s.Table, s.Lines, s.Legend = resourceTable(rc, storageOf(c))
		}
		out = append(out, s)
	}
	return out
}

func storageOf(c Row) string {
	if v, ok := paramOf(c.Params, cost.ParamStorage); ok {
		return v
	}
	return cost.DefaultStorage
}

// resourceTable is one case's Resources table, the lines under it and its legend.
func resourceTable(c cost.Case, storage string) (Table, []string, []string) {
	anySyncs, anyWrites, anyDB, anyMem := false, false, false, false
	var unmeasurable []string // actors without any block-I/O source
	for _, a := range c.Actors {
		anySyncs = anySyncs || a.SyncsCounted
		anyWrites = anyWrites || a.WriteBytes > 0 && !a.WritesNotMeasurable
		anyDB = anyDB || a.DBGrowthKnown
		anyMem = anyMem || a.MemLimitBytes > 0
		if a.WritesNotMeasurable {
			unmeasurable = append(unmeasurable, a.Name)
		}
	}
	t := Table{Header: []string{"Actor", "CPU ms/payment", "CPU (cores)", "CPU of limit", "RSS peak (MiB)"}}
	legend := []string{
		"CPU ms/payment : the actor's CPU time (user + system) over the sampled measured intervals ÷ the case's successful measured payments that ended in them (failed payments are in no denominator)",
		"CPU (cores)    : mean cores used over those intervals",
		"CPU of limit   : CPU (cores) as a share of the actor's CPU limit, or of the host's cores when it has none (host)",
		"RSS peak       : largest resident set size sampled during the measured iterations",
	}
	if anyMem {
		t.Header = append(t.Header, "Mem limit (MiB)")
	}
	if anySyncs {
		t.Header = append(t.Header, "Syncs/payment", "Syncs/s")
		legend = append(legend, "Syncs/payment  : fsync + fdatasync calls over the measured intervals ÷ payments, as Syncs/s over time (NA: no counter on that actor)")
	}
	if anyWrites {
		t.Header = append(t.Header, "Written KiB/payment")
		legend = append(legend, "Written        : block I/O bytes written per payment (the cgroup's block-I/O counters, else /proc/<pid>/io write_bytes over the actor's processes; "+NotMeasurable+": neither could be read for that actor)")
	}
	if anyDB {
		t.Header = append(t.Header, "DB growth (KiB)", "DB growth B/payment")
		legend = append(legend, "DB growth      : data dir size at the case's end minus at its start; per payment over every successful payment of the case, warm-up included")
	}
	mibs := func(b int64) string { return fmt.Sprintf("%.1f", float64(b)/(1<<20)) }
	for _, a := range c.Actors {
		limit := fmt.Sprintf("%.0f%% of %g", 100*a.Utilisation, a.Limit)
		if a.LimitIsHost {
			limit += " (host)"
		}
		if a.Limit == 0 {
			limit = "NA"
		}
		row := []string{a.Name, fmt.Sprintf("%.2f", a.CPUMsPerPayment), fmt.Sprintf("%.3f", a.CPUs), limit, mibs(a.RSSPeakBytes)}
		if anyMem {
			row = append(row, naIf(a.MemLimitBytes == 0, mibs(a.MemLimitBytes)))
		}
		if anySyncs {
			row = append(row, naIf(!a.SyncsCounted, fmt.Sprintf("%.2f", a.SyncsPerPayment)), naIf(!a.SyncsCounted, fmt.Sprintf("%.1f", a.SyncsPerSec)))
		}
		if anyWrites {
			w := fmt.Sprintf("%.1f", a.WriteBytesPerPayment/1024)
			if a.WritesNotMeasurable {
				w = NotMeasurable
			}
			row = append(row, w)
		}
		if anyDB {
			row = append(row, naIf(!a.DBGrowthKnown, fmt.Sprintf("%.0f", float64(a.DBGrowthBytes)/1024)),
				naIf(!a.DBGrowthKnown, fmt.Sprintf("%.0f", a.DBGrowthBytesPerPayment)))
		}
		t.Rows = append(t.Rows, row)
	}
	var lines []string
	if cl := c.Ceiling; cl != nil {
		lines = append(lines, fmt.Sprintf("Sync ceiling (%s): probe %.0f syncs/s ÷ %s's %.2f syncs/payment = %.1f payments/s; measured %.2f payments/s (%.0f%% of the ceiling).",
			cl.Storage, cl.ProbeSyncsPerSec, cl.Node, cl.SyncsPerPayment, cl.PaymentsPerSec, cl.Measured, 100*cl.Utilisation))
	} else {
		lines = append(lines, "Sync ceiling: unknown ("+c.NoCeiling+").")
	}
	lines = append(lines, "Verdict: "+c.Verdict.Text+".")
	if c.NodesCPUMsPerPayment > 0 {
		l := fmt.Sprintf("All nodes together: %.2f CPU ms", c.NodesCPUMsPerPayment)
		if anySyncs {
			l += fmt.Sprintf(" and %.2f syncs", c.NodesSyncsPerPayment)
		}
		lines = append(lines, l+" per payment.")
	}
	if c.HasHarnessShare {
		l := fmt.Sprintf("Harness CPU: %.2f%% of the nodes' CPU (goal ≤ %g%%", 100*c.HarnessShare, 100*cost.HarnessGoal)
		if c.HarnessShare > cost.HarnessGoal {
			l += ": over it"
		}
		l += ")"
		if c.ProxyShare > 0 {
			l = fmt.Sprintf("%s, of which docker-proxy %.2f%% (the userland proxy of the published ports: the harness's calls to btcd and the sampler, and to nodes the host cannot route to)", l, 100*c.ProxyShare)
		}
		if c.HasSamplerShare {
			l += fmt.Sprintf("; sampler %.2f%%", 100*c.SamplerShare)
		}
		lines = append(lines, l+".")
	}
	if !anySyncs {
		lines = append(lines, "Syncs: not counted for any actor (no sync counter was attached; the run's warnings say why), so no syncs columns and no ceiling.")
	}
	switch {
	case !anyWrites && storage == "tmpfs":
		lines = append(lines, "Block writes: none (the data dirs are on tmpfs, which writes no blocks), so no Written column.")
	case !anyWrites && len(unmeasurable) == len(c.Actors):
		lines = append(lines, "Block writes: "+NotMeasurable+" on this host ("+unmeasurableWhy+"), so no Written column.")
	case !anyWrites:
		lines = append(lines, "Block writes: none (the collector counted no block writes), so no Written column.")
	}
	if len(unmeasurable) > 0 && len(unmeasurable) < len(c.Actors) && storage != "tmpfs" {
		lines = append(lines, "Block writes: "+NotMeasurable+" on this host for "+strings.Join(unmeasurable, ", ")+" ("+unmeasurableWhy+").")
	}
	if !anyDB {
		lines = append(lines, "DB growth: data dir sizes were not sampled at the case's start and end.")
	}
	if o := c.Outside; o != nil {
		l := fmt.Sprintf("Outside the run: other processes used %.2f cores (%.0f%% of the host's %g; host busy %.1f s − run %.1f s over %.1f s measured; busy above %.2f)",
			o.Cores, 100*o.HostShare, o.HostCores, o.HostCPUSeconds, o.RunCPUSeconds, o.Seconds, cost.BusyThreshold(o.HostCores))
		if o.Busy {
			l += ": busy machine, these figures and the verdict are unreliable"
		}
		lines = append(lines, l+".")
	}
	lines = append(lines, c.Notes...)
	return t, lines, legend
}

// NotMeasurable stands where a figure had no source on the host that ran
// the case: not a zero.
const NotMeasurable = "not measurable"

const unmeasurableWhy = "its cgroup's block-I/O counters listed no device and /proc/<pid>/io of its processes was unreadable"

func naIf(na bool, s string) string {
	if na {
		return "NA"
	}
	return s
}

// resourcesSection has one subsection per case (its table and the lines
// under it), then the legend of every column shown, once.
func resourcesSection(r Report) Section {
	s := Section{Title: "Resources"}
	secs := ResourceSections(r)
	for _, c := range secs {
		s.Blocks = append(s.Blocks, Block{Heading: c.Case})
		if len(c.Table.Header) > 0 {
			s.Blocks = append(s.Blocks, tableBlock(c.Table))
		}
		s.Blocks = append(s.Blocks, Block{Bullets: c.Lines})
	}
	if legend := resourceLegend(secs); len(legend) > 0 {
		s.Blocks = append(s.Blocks, Block{Legend: legend})
	}
	return s
}

func overheadSection(r Report) Section {
	s := Section{Title: "Sampling overhead"}
	var lines []string
	for _, o := range r.SamplingOverhead {
		lines = append(lines, OverheadLine(o))
	}
	if len(lines) > 0 {
		s.Blocks = []Block{{Bullets: lines}}
	}
	return s
}

// resourceLegend is every line of the sections' legends, once each.
func resourceLegend(secs []ResourceSection) []string {
	var legend []string
	for _, s := range secs {
		for _, l := range s.Legend {
			if !slices.Contains(legend, l) {
				legend = append(legend, l)
			}
		}
	}
	return legend
}
