package load

import (
	"fmt"
	"math"
	"time"
)

// Pacer schedules an open-loop iteration: Offset(i) is when the i-th payment
// is due, relative to the iteration's start. Pure, so it is table-tested.
type Pacer interface {
	Offset(i int) time.Duration
	String() string
}

// ConstantRate starts payments evenly at PerSecond.
type ConstantRate struct{ PerSecond float64 }

func (c ConstantRate) Offset(i int) time.Duration {
	return time.Duration(math.Round(float64(i) / c.PerSecond * float64(time.Second)))
}

func (c ConstantRate) String() string { return fmt.Sprintf("%g/s", c.PerSecond) }

// LinearRamp starts at From per second and changes by Slope per second of
// elapsed time: the instantaneous rate is From + Slope·t. Offset solves
// ∫₀ᵗ (From + Slope·s) ds = i for t.
type LinearRamp struct{ From, Slope float64 }

func (r LinearRamp) Offset(i int) time.Duration {
	n := float64(i)
	var t float64
	if r.Slope == 0 {
		t = n / r.From
	} else {
		// Slope/2·t² + From·t − n = 0, positive root.
		t = (-r.From + math.Sqrt(r.From*r.From+2*r.Slope*n)) / r.Slope
	}
	return time.Duration(math.Round(t * float64(time.Second)))
}

func (r LinearRamp) String() string { return fmt.Sprintf("%g/s%+g/s²", r.From, r.Slope) }
