// Package chanstate is the stream of channel readings: each node's
// channels (commitment height, HTLCs in flight) at every iteration's start
// and end and about once a second during it, appended to channels.jsonl.
// Package cost reads it to name a channel's commitment pipeline as the bound.
package chanstate

import (
	"time"

	"github.com/lnbench/lnbench/internal/jsonl"
)

// FileName is the stream's name in the artifacts folder.
const FileName = "channels.jsonl"

// Points of a reading in its iteration.
const (
	Start = "start"
	End   = "end"
	Poll  = "poll"
)

// Reading is one node's channels at one instant.
type Reading struct {
	Time      time.Time `json:"time"`
	Network   string    `json:"network"`
	Case      string    `json:"case"`
	Phase     string    `json:"phase"` // result.Warmup | result.Measure
	Iteration int       `json:"iteration"`
	Point     string    `json:"point"` // Start | End | Poll
	Node      string    `json:"node"`
	Channels  []Channel `json:"channels"`
}

// Channel is node.ChannelState with the peer named by its topology name.
type Channel struct {
	Point       string `json:"chan_point"`
	Peer        string `json:"peer"`
	Initiator   bool   `json:"initiator,omitempty"`
	Updates     uint64 `json:"num_updates"`
	Pending     int    `json:"pending_htlcs"`
	MaxAccepted int    `json:"max_accepted_htlcs,omitempty"`
}

// Writer appends readings; safe for concurrent use.
type Writer = jsonl.Writer[Reading]

// Create opens path for appending.
func Create(path string) (*Writer, error) { return jsonl.Create[Reading](path, "channel stream") }

// Load reads path; a missing file is no readings.
func Load(path string) ([]Reading, error) { return jsonl.Load[Reading](path, FileName) }
