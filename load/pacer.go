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
