package cost

import (
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/chanstate"
	"github.com/lnbench/lnbench/record/result"
)

// channels is a ChannelUse of n channels between alice and bob (or a
// route when route is set), 2 updates per payment, 38 of 483 in flight.
func channels(n int, route bool) *ChannelUse {
	u := &ChannelUse{Updates: 200, Payments: 100, UpdatesPerPayment: 2}
	for i := 0; i < n; i++ {
		ends := "alice–bob"
		if route && i == 1 {
			ends = "bob–carol"
		}
		u.Channels = append(u.Channels, ChannelLoad{Ends: ends, Updates: 200 / uint64(n), MaxPending: 38, MaxAccepted: 483})
	}
	return u
}

func TestNameBounds(t *testing.T) {
	// Iterations ±5% around each case's throughput.
	iters := func(x float64) []float64 { return []float64{0.95 * x, x, 1.05 * x} }
	sweep := func(x5, p5, x40, p40 float64) []CaseInput {
		return []CaseInput{{ID: "c5", Group: "g", Concurrency: 5, PaymentsPerSec: x5, P50Ms: p5, IterationsPerSec: iters(x5)},
			{ID: "c40", Group: "g", Concurrency: 40, PaymentsPerSec: x40, P50Ms: p40, IterationsPerSec: iters(x40)}}
	}
	noisy := sweep(10, 250, 13, 650)
	noisy[1].IterationsPerSec = []float64{7, 13, 19}
	flat := sweep(20, 250, 21, 1900)
	tests := []struct {
		name     string
		ins      []CaseInput
		use      *ChannelUse
		bound    string // the USE verdict's: a saturated one keeps its text
		kinds    [2]string
		contains [2]string
	}{
		{"one channel, flat, latency ×7.6: the channel", flat, channels(1, false), "none",
			[2]string{LimitChannel, LimitChannel},
			[2]string{"; bound by the alice–bob channel's commitment pipeline: 2.0 commitment updates per payment over 1 channel (alice–bob), at most 38 HTLCs in flight of 483; throughput +5% from c=5 to c=40 while p50 rose ×7.6",
				"from c=5 to c=40"}},
		{"four parallel channels, flat: beyond one channel", flat, channels(4, false), "none",
			[2]string{LimitSerialized, LimitSerialized},
			[2]string{"beyond one channel's pipeline: 2.0 commitment updates per payment over 4 parallel alice–bob channels", ""}},
		{"a route of two channels, flat: a serialized stage", flat, channels(2, true), "none",
			[2]string{LimitSerialized, LimitSerialized}, [2]string{"over 2 channels (alice–bob, bob–carol)", ""}},
		{"no channel readings (CLN), flat", flat, nil, "none",
			[2]string{LimitSerialized, LimitSerialized}, [2]string{"commitment updates unknown (no node read its channels); throughput +5%", ""}},
		{"throughput still scaling", sweep(10, 250, 30, 650), channels(1, false), "none",
			[2]string{LimitConcurrency, LimitUnknown},
			[2]string{"bound by the load's concurrency: ", "bound not identified: 2.0 commitment updates per payment over 1 channel (alice–bob), at most 38 HTLCs in flight of 483; throughput +200% from c=5 to c=40 while p50 rose ×2.6 (still scaling)"}},
		{"a gain within the iterations' noise", noisy, channels(1, false), "none",
			[2]string{LimitUnknown, LimitUnknown}, [2]string{"throughput +30% from c=5 to c=40 while p50 rose ×2.6, but the iterations of the two overlap: no clear gain", "overlap"}},
		{"flat without latency growth: the load stalled", sweep(20, 250, 21, 300), channels(1, false), "none",
			[2]string{LimitHarness, LimitHarness}, [2]string{"bound by the harness or the payer: fewer payments in flight", ""}},
		{"one case alone: nothing to compare", flat[:1], channels(1, false), "none",
			[2]string{LimitUnknown}, [2]string{"; no case of this network at another concurrency to compare"}},
		{"concurrency less than doubled: no comparison", []CaseInput{flat[0], {ID: "c8", Group: "g", Concurrency: 8, PaymentsPerSec: 20, P50Ms: 400}}, channels(1, false), "none",
			[2]string{LimitUnknown, LimitUnknown}, [2]string{"no case of this network at another concurrency", "no case of this network at another concurrency"}},
		{"other groups do not compare", []CaseInput{flat[0], {ID: "x", Group: "h", Concurrency: 40, PaymentsPerSec: 21, P50Ms: 1900}}, channels(1, false), "none",
			[2]string{LimitUnknown, LimitUnknown}, [2]string{"no case of this network at another concurrency", ""}},
		{"HTLC slots full", flat, func() *ChannelUse { u := channels(1, false); u.Channels[0].MaxPending = 470; return u }(), "none",
			[2]string{LimitSlots, LimitSlots}, [2]string{"bound by the alice–bob channel's HTLC slots: 470 in flight of its 483", ""}},
		{"a saturated resource keeps its verdict", flat, channels(1, false), "cpu", [2]string{}, [2]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cases []Case
			for _, in := range tt.ins {
				cases = append(cases, Case{ID: in.ID, Channels: tt.use, Verdict: Verdict{Bound: tt.bound, Text: "evidence: verdict"}})
			}
			nameBounds(cases, tt.ins)
			for i, c := range cases {
				if tt.kinds[i] == "" {
					if c.Verdict.Limit != nil || c.Verdict.Text != "evidence: verdict" {
						t.Errorf("%s: verdict changed to %+v", c.ID, c.Verdict)
					}
					continue
				}
				if c.Verdict.Limit == nil || c.Verdict.Limit.Kind != tt.kinds[i] || !strings.Contains(c.Verdict.Text, tt.contains[i]) ||
					!strings.HasSuffix(c.Verdict.Text, c.Verdict.Limit.Text) {
					t.Errorf("%s: %q (%+v)\nwant %s containing %q", c.ID, c.Verdict.Text, c.Verdict.Limit, tt.kinds[i], tt.contains[i])
				}
			}
		})
	}
}

func TestChannelUse(t *testing.T) {
	t0 := time.Unix(1e9, 0)
	ch := func(point, peer string, init bool, upd uint64, pending int) chanstate.Channel {
		return chanstate.Channel{Point: point, Peer: peer, Initiator: init, Updates: upd, Pending: pending, MaxAccepted: 483}
	}
	read := func(phase string, it int, pt, nd string, cs ...chanstate.Channel) chanstate.Reading {
		return chanstate.Reading{Time: t0, Network: "n", Case: "c", Phase: phase, Iteration: it, Point: pt, Node: nd, Channels: cs}
	}
	readings := []chanstate.Reading{
		// Warm-up moves the counter but does not count.
		read(result.Warmup, 0, chanstate.Start, "alice", ch("ab", "bob", true, 0, 0)),
		read(result.Warmup, 0, chanstate.End, "alice", ch("ab", "bob", true, 50, 0)),
		// Iteration 0: bob's end is one update ahead of alice's at the end.
		read(result.Measure, 0, chanstate.Start, "alice", ch("ab", "bob", true, 50, 0), ch("idle", "carol", false, 9, 0)),
		read(result.Measure, 0, chanstate.Start, "bob", ch("ab", "alice", false, 50, 0)),
		read(result.Measure, 0, chanstate.Poll, "bob", ch("ab", "alice", false, 60, 12)),
		read(result.Measure, 0, chanstate.End, "alice", ch("ab", "bob", true, 69, 0), ch("idle", "carol", false, 9, 0)),
		read(result.Measure, 0, chanstate.End, "bob", ch("ab", "alice", false, 70, 0)),
		// Iteration 1 has no end reading (interrupted): left out with its payments.
		read(result.Measure, 1, chanstate.Start, "alice", ch("ab", "bob", true, 70, 0)),
		read(result.Measure, 1, chanstate.Poll, "alice", ch("ab", "bob", true, 75, 30)),
		read("other", 0, chanstate.Start, "alice", ch("ab", "bob", true, 0, 0)),
	}
	var pays []result.Record
	for i := 0; i < 12; i++ {
		st := result.Succeeded
		if i == 11 {
			st = "failed"
		}
		pays = append(pays, result.Record{Case: "c", Phase: result.Measure, Iteration: i % 2, Status: st})
	}
	u := channelUse("c", readings, pays)
	if u == nil {
		t.Fatal("no channel use")
	}
	// 20 updates over the 6 successful payments of iteration 0.
	if u.Updates != 20 || u.Payments != 6 || len(u.Channels) != 1 {
		t.Fatalf("%+v", u)
	}
	if l := u.Channels[0]; l.Ends != "alice–bob" || l.MaxPending != 30 || l.MaxAccepted != 483 {
		t.Errorf("channel %+v", l)
	}
	if got, want := u.text(), "3.3 commitment updates per payment over 1 channel (alice–bob), at most 30 HTLCs in flight of 483"; got != want {
		t.Errorf("text %q\nwant %q", got, want)
	}
	if channelUse("none", readings, pays) != nil {
		t.Error("a case without readings has channel use")
	}
}

func TestBoundOnABusyMachineSaysSo(t *testing.T) {
	cases := []Case{{Verdict: Verdict{Bound: boundNone}, Outside: &Outside{Cores: 1.2, Busy: true}}, {Verdict: Verdict{Bound: boundNone}}}
	nameBounds(cases, []CaseInput{{}, {}})
	if !strings.Contains(cases[0].Verdict.Text, "unreliable: other processes used 1.20 cores") || strings.Contains(cases[1].Verdict.Text, "unreliable") {
		t.Errorf("verdicts %q / %q", cases[0].Verdict.Text, cases[1].Verdict.Text)
	}
}

// Three launches of one alice–bob channel are one channel of the case,
// and two parallel channels in each of two launches are two.
func TestChannelUseAcrossLaunches(t *testing.T) {
	read := func(network string, it int, pt string, upd uint64, points ...string) chanstate.Reading {
		var cs []chanstate.Channel
		for _, p := range points {
			cs = append(cs, chanstate.Channel{Point: p, Peer: "bob", Initiator: true, Updates: upd, MaxAccepted: 483})
		}
		return chanstate.Reading{Network: network, Case: "c", Phase: result.Measure, Iteration: it, Point: pt, Node: "alice", Channels: cs}
	}
	var readings []chanstate.Reading
	var pays []result.Record
	for i, n := range []string{"launch1", "launch2", "launch3"} {
		readings = append(readings, read(n, i, chanstate.Start, 10, n+"-ab"), read(n, i, chanstate.End, 20, n+"-ab"))
		pays = append(pays, result.Record{Case: "c", Phase: result.Measure, Iteration: i, Status: result.Succeeded})
	}
	u := channelUse("c", readings, pays)
	if u == nil || len(u.Channels) != 1 || u.Channels[0].Updates != 30 || u.Updates != 30 {
		t.Fatalf("three launches of one channel: %+v", u)
	}
	if got := u.channelsText(); got != "1 channel (alice–bob)" {
		t.Errorf("%q", got)
	}
	readings = nil
	for i, n := range []string{"launch1", "launch2"} {
		readings = append(readings, read(n, i, chanstate.Start, 10, n+"-ab1", n+"-ab2"), read(n, i, chanstate.End, 20, n+"-ab1", n+"-ab2"))
	}
	if u := channelUse("c", readings, pays); u == nil || len(u.Channels) != 2 || u.Updates != 40 || u.channelsText() != "2 parallel alice–bob channels" {
		t.Errorf("two launches of two parallel channels: %+v", u)
	}
}
