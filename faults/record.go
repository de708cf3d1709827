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
	// Mechanism is how a delay or loss was applied: "netem" (qdisc), or
	// "nfqueue" (iptables drops, and a user-space delayer holding incoming
	// packets) when the kernel has no netem. Empty for other faults.
	Mechanism string `json:"mechanism,omitempty"`
	// Start is when the injection took effect.
	Start time.Time `json:"start"`
	// End is when the fault was over: the impairment removed, the paused
	// actor resumed, the restarted node's RPC answering again. Zero for a
	// kill, or when the run ended first.
	End time.Time `json:"end,omitzero"`
	// ChannelsActive is when a restarted node had every channel active
	// again (zero when not a restart, or never within the run).
	ChannelsActive time.Time `json:"channels_active,omitzero"`
	// Error says why the injection or its removal failed ("" if it did not).
	Error string `json:"error,omitempty"`
}
