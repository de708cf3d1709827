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
	// its traffic with peer when peer is not "", and says how and when it
	// took effect. Clear removes it again and returns when that took effect.
	Impair(ctx context.Context, name, peer string, imp Impairment) (Applied, error)
	Clear(ctx context.Context, name, peer string) (time.Time, error)
}

// ImpairmentPreparer is implemented by injectors that must probe how they
// impair (which kernel mechanisms the engine has): the runner asks before
// measuring, so an impairment takes effect sooner after its trigger.
type ImpairmentPreparer interface {
	PrepareImpairments(ctx context.Context) error
}

// Applied is what an impairment did: fault records carry it, so a reader
// knows which packets were touched and how.
type Applied struct {
	// At is when the impairment took effect (the rules in place), which
	// can be a second after the call began: helpers start containers.
	At time.Time
	// Mechanism is what ran: "netem", "nfqueue" (a user-space delayer),
	// "bpf" (a tc classic-BPF random drop), "htb" (a rate limit).
	Mechanism string
	// Direction is which of the actor's packets: "both", "incoming", "outgoing".
	Direction string
	// Exempt lists the traffic left alone, e.g. the harness's control
	// connections ("harness 172.18.0.1").
	Exempt []string
}

// Impairment is a netem setting; zero fields are not applied.
type Impairment struct {
	Delay       time.Duration
	Jitter      time.Duration
	LossPercent float64
	RateKbit    int
}

// ErrNoImpairments is returned by backends that cannot impair a network
// (local processes share the host's loopback); Fix names the backends
// that can ("use --backend compose").
type ErrNoImpairments struct{ Fault, Fix string }

func (e ErrNoImpairments) Error() string {
	return e.Fault + " needs a backend whose nodes have their own network interface (impairments act on it); " + e.Fix
}
