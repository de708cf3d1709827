package cost

import (
	"slices"
	"sort"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/usage"
)

// LaunchCost is one actor's cost over one launch of a case (a fresh
// network): Actor's per-payment figures over the intervals and payments of
// that launch alone, the unit a comparison of node specs tests.
type LaunchCost struct {
	// Launch is 0-based, numbered as analysis.Launch is: a measured
	// iteration's index / CaseInput.PerLaunch (the runner numbers launch
	// L's iterations from L·PerLaunch).
	Launch int `json:"launch"`
	// Network is the network whose samples were credited (one per launch).
	Network  string  `json:"network"`
	Seconds  float64 `json:"sampled_seconds"`
	Payments int     `json:"payments"`
	// CPUMsPerPayment and SyncsPerPayment are Actor's, over this launch.
	CPUMsPerPayment float64 `json:"cpu_ms_per_payment"`
	SyncsCounted    bool    `json:"syncs_counted"`
	SyncsPerPayment float64 `json:"syncs_per_payment,omitempty"`
}

// Launches is case ci's cost per actor and launch: each credited interval
// (as Analyze credits them: the later sample in one of the case's measured
// iterations) goes to the launch of that sample's iteration, and its
// payments are the case's successful measured payments of the same launch
// that ended inside it. Actors map to their launches in launch order;
// launches an actor has no credited interval in are absent. Pure.
func Launches(in Input, ci CaseInput) map[string][]LaunchCost {
	return launchCosts(in, ci, seriesOf(in.Samples))
}

func launchCosts(in Input, ci CaseInput, series map[seriesKey][]usage.Sample) map[string][]LaunchCost {
	launchOf := func(iteration int) int {
		if ci.PerLaunch > 0 {
			return iteration / ci.PerLaunch
		}
		return 0 // one launch (a timed job)
	}
	ends := map[int][]time.Time{}
	for _, r := range in.Payments {
		if r.ID() == ci.ID && r.Status == result.Succeeded && r.Phase == result.Measure {
			l := launchOf(r.Iteration)
			ends[l] = append(ends[l], r.End)
		}
	}
	for _, e := range ends {
		slices.SortFunc(e, func(a, b time.Time) int { return a.Compare(b) })
	}
	type key struct {
		actor  string
		launch int
	}
	accs := map[key]*acc{}
	network := map[key]string{}
	var scratch Case // credit appends to a case's timeline; not wanted here
	for _, k := range sortedKeys(series) {
		ss := series[k]
		for i, s := range ss {
			if i == 0 || s.Case != ci.ID || s.Role == usage.RoleHost || s.Phase != result.Measure {
				continue
			}
			kk := key{s.Actor, launchOf(s.Iteration)}
			a := accs[kk]
			if a == nil {
				a = &acc{Actor: Actor{Name: s.Actor, Role: s.Role, Source: s.Source}}
				accs[kk], network[kk] = a, k.network
			}
			p := ss[i-1]
			credit(a, p, s, endedBetween(ends[kk.launch], p.Time, s.Time), in.HostCores, &scratch)
			scratch.Timeline = scratch.Timeline[:0]
		}
	}
	out := map[string][]LaunchCost{}
	for kk, a := range accs {
		if a.Intervals == 0 {
			continue // only gaps over MaxGap
		}
		finish(a)
		out[kk.actor] = append(out[kk.actor], LaunchCost{Launch: kk.launch, Network: network[kk], Seconds: a.Seconds, Payments: a.Payments,
			CPUMsPerPayment: a.CPUMsPerPayment, SyncsCounted: a.SyncsCounted, SyncsPerPayment: a.SyncsPerPayment})
	}
	for _, ls := range out {
		sort.Slice(ls, func(i, j int) bool { return ls[i].Launch < ls[j].Launch })
	}
	return out
}

// sortedKeys orders series by actor, then network: the order Analyze
// credits them in.
func sortedKeys(series map[seriesKey][]usage.Sample) []seriesKey {
	keys := make([]seriesKey, 0, len(series))
	for k := range series {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].actor != keys[j].actor {
			return keys[i].actor < keys[j].actor
		}
		return keys[i].network < keys[j].network
	})
	return keys
}

// endedBetween counts the sorted ends in (from, to].
func endedBetween(ends []time.Time, from, to time.Time) int {
	after := func(t time.Time) int {
		return sort.Search(len(ends), func(i int) bool { return ends[i].After(t) })
	}
	return after(to) - after(from)
}

// withLaunches sets each actor's Launches from ls, leaving them nil when
// the case ran one launch (launch 0 only: the actor's figures are its).
func withLaunches(actors []Actor, ls map[string][]LaunchCost) {
	for i, a := range actors {
		if l := ls[a.Name]; len(l) > 1 || len(l) == 1 && l[0].Launch != 0 {
			actors[i].Launches = l
		}
	}
}
