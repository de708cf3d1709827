// Package faults describes faults injected on purpose during a run (kill,
// restart, pause, network impairment) and what happened when they were.
// The injector (runner, backends) writes one Record per fault to
// faults.jsonl in the artifacts; analysis reads them back for recovery
// figures and timeline marks.
package faults

import "time"

// FileName is the fault stream in an artifacts folder.
const FileName = "faults.jsonl"

// Kinds of faults.
const (
	Kill    = "kill"    // stop the actor for good (SIGKILL / docker kill)
	Restart = "restart" // stop and start again on the same data
	Pause   = "pause"   // freeze for a duration (SIGSTOP / docker pause)
	Delay   = "delay"   // netem delay (with jitter)
	Loss    = "loss"    // netem loss
	Rate    = "rate"    // netem rate limit
)

// Record is one injected fault as it happened.
type Record struct {
	Network string `json:"network"`
	Case    string `json:"case"`
	// Iteration is the measured iteration the fault began in (-1: warm-up or between iterations).
	Iteration int    `json:"iteration"`
	Kind      string `json:"kind"`
	// Target is an actor name ("bob"), or a link "alice~carol" for an
	// impairment between two actors only.
	Target string `json:"target"`
	// Spec is the fault as the user wrote it, for reports.
	Spec string `json:"spec"`
	// Mechanism is what applied an impairment: "netem" (a qdisc),
	// "nfqueue" (a user-space delayer holding packets), "bpf" (a tc filter
	// dropping at random), "htb" (a rate limit). Empty for other faults.
	Mechanism string `json:"mechanism,omitempty"`
	// Direction is which of the target's packets an impairment touched:
	// "both", "incoming" or "outgoing" (for a link a~b: a's, with b only).
	Direction string `json:"direction,omitempty"`
	// Exempt is the traffic an impairment left alone: the harness's
	// control connections to the node (gRPC, REST) and the sampler's.
	Exempt []string `json:"exempt,omitempty"`
	// Scheduled is when the trigger fired; Start can be later (an
	// impairment's helper takes about a second).
	Scheduled time.Time `json:"scheduled,omitzero"`
	// Start is when the injection took effect (for an impairment: its
	// rules in place, by the helper's clock).
	Start time.Time `json:"start"`
	// End is when the fault was over: the impairment's rules removed, the paused
	// actor resumed, the restarted node's RPC answering again. Zero for a
	// kill, or when the run ended first.
	End time.Time `json:"end,omitzero"`
	// ChannelsActive is when a restarted node had every channel active
	// again (zero when not a restart, or never within the run).
	ChannelsActive time.Time `json:"channels_active,omitzero"`
	// Error says why the injection or its removal failed ("" if it did not).
	Error string `json:"error,omitempty"`
}
