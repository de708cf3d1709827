package cost

import (
	"fmt"
	"slices"
	"strings"
)

// Thresholds of the bound naming. By Little's law c = X·R: a closed loop of
// c workers whose throughput X stays flat while c doubles must see its
// latency R grow in proportion, which is what a serialized stage does.
const (
	// ScalingFlat: less throughput gain than this over a concurrency at
	// least ScalingStep times higher is no gain (run-to-run noise on a
	// busy machine is a few percent).
	ScalingFlat = 0.15
	ScalingStep = 2.0
	// LatencyProportional: p50 grew by at least this share of the
	// concurrency's factor (p50 tracks the mean R loosely).
	LatencyProportional = 0.5
	// SlotsFull: HTLCs in flight at this share of the channel's cap.
	SlotsFull = 0.9
)

// Kinds of Limit.
const (
	LimitChannel     = "channel-pipeline"
	LimitSlots       = "htlc-slots"
	LimitSerialized  = "serialized-stage"
	LimitHarness     = "harness"
	LimitConcurrency = "concurrency"
	LimitUnknown     = "not-identified"
)

// Limit is what bounds a case no sampled resource saturated.
type Limit struct {
	Kind    string `json:"kind"`
	Channel string `json:"channel,omitempty"` // "alice–bob" for the channel kinds
	// Text is the conclusion then its evidence, e.g. "bound by the
	// alice–bob channel's commitment pipeline: 2.1 commitment updates per
	// payment over 1 channel (alice–bob); throughput +6% from c=5 to c=40
	// while p50 rose ×7.6".
	Text    string   `json:"text"`
	Scaling *Scaling `json:"scaling,omitempty"`
}

// Scaling compares a case with the nearest case of its group at least
// ScalingStep times the concurrency away: the next one up, else down.
type Scaling struct {
	FromConcurrency int     `json:"from_concurrency"`
	ToConcurrency   int     `json:"to_concurrency"`
	ThroughputGain  float64 `json:"throughput_gain"` // X_to / X_from − 1
	P50Factor       float64 `json:"p50_factor"`      // p50_to / p50_from
	// Up says the case is the lower end: more concurrency was tried.
	Up bool `json:"up"`
	// Separated says every iteration at the higher concurrency was faster
	// than every one at the lower: the gain is not iteration noise.
	Separated bool `json:"iterations_separated"`
}

func (s Scaling) flat() bool { return s.ThroughputGain < ScalingFlat }

func (s Scaling) proportional() bool {
	return s.P50Factor >= LatencyProportional*float64(s.ToConcurrency)/float64(s.FromConcurrency)
}

func (s Scaling) text() string {
	return fmt.Sprintf("throughput %+.0f%% from c=%d to c=%d while p50 rose ×%.1f", 100*s.ThroughputGain, s.FromConcurrency, s.ToConcurrency, s.P50Factor)
}

// scalingOf finds case i's comparison in its group; nil without one.
func scalingOf(i int, ins []CaseInput) *Scaling {
	me := ins[i]
	ok := func(c CaseInput) bool { return c.Concurrency > 0 && c.PaymentsPerSec > 0 && c.P50Ms > 0 }
	if me.Group == "" || !ok(me) {
		return nil
	}
	up, down := -1, -1
	for j, o := range ins {
		if j == i || o.Group != me.Group || !ok(o) {
			continue
		}
		if float64(o.Concurrency) >= ScalingStep*float64(me.Concurrency) && (up < 0 || o.Concurrency < ins[up].Concurrency) {
			up = j
		}
		if ScalingStep*float64(o.Concurrency) <= float64(me.Concurrency) && (down < 0 || o.Concurrency > ins[down].Concurrency) {
			down = j
		}
	}
	lo, hi := down, i
	if up >= 0 {
		lo, hi = i, up
	}
	if lo < 0 {
		return nil
	}
	a, b := ins[lo], ins[hi]
	return &Scaling{FromConcurrency: a.Concurrency, ToConcurrency: b.Concurrency, Up: up >= 0,
		ThroughputGain: b.PaymentsPerSec/a.PaymentsPerSec - 1, P50Factor: b.P50Ms / a.P50Ms,
		Separated: len(a.IterationsPerSec) > 0 && len(b.IterationsPerSec) > 0 && slices.Min(b.IterationsPerSec) > slices.Max(a.IterationsPerSec)}
}

// nameBounds extends the verdict of every case no sampled resource
// saturated with the likeliest other bound and its evidence.
func nameBounds(cases []Case, ins []CaseInput) {
	for i := range cases {
		if cases[i].Verdict.Bound != boundNone {
			continue
		}
		l := limitOf(cases[i].Channels, scalingOf(i, ins))
		// Other processes' load flattens a sweep as a serialized stage
		// would: on a busy machine the bound named is a guess.
		if o := cases[i].Outside; o != nil && o.Busy {
			l.Text += fmt.Sprintf(" (unreliable: other processes used %.2f cores meanwhile)", o.Cores)
		}
		cases[i].Verdict.Limit = &l
		cases[i].Verdict.Text += "; " + l.Text
	}
}

func limitOf(u *ChannelUse, sc *Scaling) Limit {
	l := Limit{Scaling: sc}
	evidence := []string{u.text()}
	if sc != nil {
		evidence = append(evidence, sc.text())
	}
	ev := strings.Join(evidence, "; ")
	switch {
	case u != nil && len(u.Channels) > 0 && u.busiest().MaxAccepted > 0 &&
		float64(u.busiest().MaxPending) >= SlotsFull*float64(u.busiest().MaxAccepted):
		b := u.busiest()
		l.Kind, l.Channel = LimitSlots, b.Ends
		l.Text = fmt.Sprintf("bound by the %s channel's HTLC slots: %d in flight of its %d; %s", b.Ends, b.MaxPending, b.MaxAccepted, ev)
	case sc != nil && sc.flat() && sc.proportional():
		switch {
		case u != nil && len(u.Channels) == 1:
			l.Kind, l.Channel = LimitChannel, u.Channels[0].Ends
			l.Text = fmt.Sprintf("bound by the %s channel's commitment pipeline: %s", l.Channel, ev)
		case u != nil && len(u.Channels) > 1 && u.parallel() != "":
			// Spreading the payments over parallel channels did not help:
			// the serialized stage is beyond any one channel.
			l.Kind = LimitSerialized
			l.Text = "bound by a serialized stage beyond one channel's pipeline: " + ev
		default:
			l.Kind = LimitSerialized
			l.Text = "bound by a serialized stage (a channel's commitment pipeline or a lock): " + ev
		}
	case sc != nil && sc.flat():
		// Flat throughput without latency growth: by Little's law fewer
		// payments were in flight than the workers, so the load stalled.
		l.Kind = LimitHarness
		l.Text = "bound by the harness or the payer: fewer payments in flight than the concurrency (" + ev + ")"
	case sc != nil && sc.Up && sc.Separated:
		l.Kind = LimitConcurrency
		l.Text = "bound by the load's concurrency: " + ev
	default:
		l.Kind = LimitUnknown
		switch {
		case sc == nil:
			ev += "; no case of this network at another concurrency to compare"
		case !sc.Separated:
			ev += ", but the iterations of the two overlap: no clear gain"
		default:
			ev += " (still scaling)"
		}
		l.Text = "bound not identified: " + ev
	}
	return l
}
