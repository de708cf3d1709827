package backend

import (
	"context"
	"time"
)

// FaultInjector is implemented by backends that can inject faults into the
// actors they started (package faults describes them). Names are service
// names: node names, or "btcd".
type FaultInjector interface {
	// Kill stops the actor for good, as a crash would (SIGKILL).
	Kill(ctx context.Context, name string) error
	// Restart stops the actor and starts it again on the same data. The
	// returned endpoint is where it answers now: published ports may change.
	Restart(ctx context.Context, name string) (NodeEndpoint, error)
	// Pause freezes every process of the actor; Resume thaws them.
	Pause(ctx context.Context, name string) error
	Resume(ctx context.Context, name string) error
	// Impair applies a network impairment to the actor's traffic, or only to
	// its traffic with peer when peer is not "". Clear removes it again.
	Impair(ctx context.Context, name, peer string, imp Impairment) error
	Clear(ctx context.Context, name, peer string) error
}

// Impairment is a netem setting; zero fields are not applied.
type Impairment struct {
	Delay       time.Duration
	Jitter      time.Duration
	LossPercent float64
	RateKbit    int
}

// ErrNeedsCompose is returned by backends that cannot impair a network
// (local processes share the host's loopback).
type ErrNeedsCompose struct{ Fault string }

func (e ErrNeedsCompose) Error() string {
	return e.Fault + " needs the compose backend (network impairments act on a container's own interface); use --backend compose"
}
