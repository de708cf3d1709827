package cost

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lnbench/lnbench/record/chanstate"
	"github.com/lnbench/lnbench/record/result"
)

// ChannelUse is what the case's measured iterations did to the channels
// whose commitments moved, from the nodes' own readings (channels.jsonl).
type ChannelUse struct {
	// Updates is the commitment updates summed over the channels, each read
	// at every measured iteration's start and end; Payments the successful
	// payments of those iterations.
	Updates           uint64        `json:"commitment_updates"`
	Payments          int           `json:"payments"`
	UpdatesPerPayment float64       `json:"commitment_updates_per_payment"`
	Channels          []ChannelLoad `json:"channels"`
}

// ChannelLoad is one channel of ChannelUse.
type ChannelLoad struct {
	Ends    string `json:"ends"` // "alice–bob", the opener first
	Updates uint64 `json:"commitment_updates"`
	// MaxPending is the most HTLCs in flight in any reading (about once a
	// second, so a lower bound of the true peak); MaxAccepted is the
	// channel's cap (0: unknown).
	MaxPending  int `json:"max_pending_htlcs"`
	MaxAccepted int `json:"max_accepted_htlcs,omitempty"`
}

// channelUse reads the case's measured iterations from the channel stream;
// nil when no node read its channels (CLN) or no iteration has both ends.
func channelUse(id string, readings []chanstate.Reading, pays []result.Record) *ChannelUse {
	type ends struct{ start, end map[string]uint64 }
	type iter struct {
		network string
		n       int
	}
	iters := map[iter]*ends{}
	load := map[string]*ChannelLoad{}
	networkOf := map[string]string{} // channel point → its network
	for _, r := range readings {
		if r.Case != id || r.Phase != result.Measure {
			continue
		}
		k := iter{r.Network, r.Iteration}
		if iters[k] == nil {
			iters[k] = &ends{map[string]uint64{}, map[string]uint64{}}
		}
		for _, ch := range r.Channels {
			networkOf[ch.Point] = r.Network
			l := load[ch.Point]
			if l == nil {
				l = &ChannelLoad{Ends: r.Node + "–" + ch.Peer}
				load[ch.Point] = l
			}
			if ch.Initiator {
				l.Ends = r.Node + "–" + ch.Peer
			}
			l.MaxPending = max(l.MaxPending, ch.Pending)
			if ch.MaxAccepted > 0 && (l.MaxAccepted == 0 || ch.MaxAccepted < l.MaxAccepted) {
				l.MaxAccepted = ch.MaxAccepted
			}
			// Both ends read a channel; their heights differ by the update
			// in flight, so the higher one counts.
			switch r.Point {
			case chanstate.Start:
				iters[k].start[ch.Point] = max(iters[k].start[ch.Point], ch.Updates)
			case chanstate.End:
				iters[k].end[ch.Point] = max(iters[k].end[ch.Point], ch.Updates)
			}
		}
	}
	counted := map[int]bool{}
	for k, e := range iters {
		if len(e.start) == 0 || len(e.end) == 0 {
			continue
		}
		counted[k.n] = true
		for p, to := range e.end {
			if from, ok := e.start[p]; ok && to > from {
				load[p].Updates += to - from
			}
		}
	}
	if len(counted) == 0 {
		return nil
	}
	u := &ChannelUse{}
	for _, r := range pays {
		if r.ID() == id && r.Phase == result.Measure && r.Status == result.Succeeded && counted[r.Iteration] {
			u.Payments++
		}
	}
	u.Channels = acrossLaunches(load, networkOf)
	for _, l := range u.Channels {
		u.Updates += l.Updates
	}
	if u.Payments > 0 {
		u.UpdatesPerPayment = float64(u.Updates) / float64(u.Payments)
	}
	return u
}

// text is the evidence in a verdict, e.g. "2.1 commitment updates per
// payment over 1 channel (alice–bob), at most 38 HTLCs in flight of 483".
func (u *ChannelUse) text() string {
	if u == nil {
		return "commitment updates unknown (no node read its channels)"
	}
	if len(u.Channels) == 0 {
		return "no channel's commitment moved in the measured iterations"
	}
	// Many HTLCs to a commitment (hundreds of workers on one channel) give
	// a few hundredths per payment, which %.1f would print as 0.0.
	format := "%.1f"
	if u.UpdatesPerPayment < 0.95 {
		format = "%.2g"
	}
	s := fmt.Sprintf(format+" commitment updates per payment over %s", u.UpdatesPerPayment, u.channelsText())
	if l := u.busiest(); l.MaxAccepted > 0 {
		s += fmt.Sprintf(", at most %d HTLCs in flight of %d", l.MaxPending, l.MaxAccepted)
	}
	return s
}

// channelsText names the channels: "1 channel (alice–bob)", "4 parallel
// alice–bob channels" or "2 channels (alice–bob, bob–carol)".
func (u *ChannelUse) channelsText() string {
	if p := u.parallel(); p != "" && len(u.Channels) > 1 {
		return fmt.Sprintf("%d parallel %s channels", len(u.Channels), p)
	}
	var names []string
	for _, l := range u.Channels {
		names = append(names, l.Ends)
	}
	if len(names) == 1 {
		return "1 channel (" + names[0] + ")"
	}
	return fmt.Sprintf("%d channels (%s)", len(names), strings.Join(names, ", "))
}

// parallel is the one pair of nodes every channel joins, else "".
func (u *ChannelUse) parallel() string {
	pair := func(e string) string {
		ab := strings.SplitN(e, "–", 2)
		sort.Strings(ab)
		return strings.Join(ab, "–")
	}
	var p string
	for _, l := range u.Channels {
		if p != "" && pair(l.Ends) != pair(p) {
			return ""
		}
		if p == "" {
			p = l.Ends
		}
	}
	return p
}

// busiest is the channel with the most HTLCs in flight relative to its cap.
func (u *ChannelUse) busiest() ChannelLoad {
	var b ChannelLoad
	for _, l := range u.Channels {
		if b.Ends == "" || l.MaxPending*max(b.MaxAccepted, 1) > b.MaxPending*max(l.MaxAccepted, 1) {
			b = l
		}
	}
	return b
}

// acrossLaunches folds the channels of the case's networks (one per launch,
// or per spec's launch) into one network's: the k-th channel between the
// same two nodes in each network is one channel of the case, so three
// launches of one alice–bob channel are 1 channel, not 3 parallel ones.
// Updates add up, the peak in flight is the highest, the cap the lowest.
func acrossLaunches(load map[string]*ChannelLoad, networkOf map[string]string) []ChannelLoad {
	points := make([]string, 0, len(load))
	for p, l := range load {
		if l.Updates > 0 {
			points = append(points, p)
		}
	}
	sort.Strings(points)
	type key struct {
		ends string
		k    int
	}
	seen := map[string]int{} // network + ends → channels so far
	folded := map[key]*ChannelLoad{}
	var order []key
	for _, p := range points {
		l := load[p]
		n := networkOf[p] + "\x00" + l.Ends
		k := key{l.Ends, seen[n]}
		seen[n]++
		f := folded[k]
		if f == nil {
			f = &ChannelLoad{Ends: l.Ends, MaxAccepted: l.MaxAccepted}
			folded[k] = f
			order = append(order, k)
		}
		f.Updates += l.Updates
		f.MaxPending = max(f.MaxPending, l.MaxPending)
		if l.MaxAccepted > 0 && (f.MaxAccepted == 0 || l.MaxAccepted < f.MaxAccepted) {
			f.MaxAccepted = l.MaxAccepted
		}
	}
	out := make([]ChannelLoad, 0, len(order))
	for _, k := range order {
		out = append(out, *folded[k])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Ends < out[j].Ends })
	return out
}
