// Package result is the stream of measurements: one record per payment,
// appended to a JSON-lines file as it happens so a crash keeps what was measured.
package result

import (
	"io"
	"os"
	"time"

	"github.com/lnbench/lnbench/internal/jsonl"
)

// Phase of an iteration.
const (
	Warmup  = "warmup"
	Measure = "measure"
	// Duet iterations are a duet-solo design's first half: every network
	// of the launch round at once, read only by the verdict's direction
	// test; the measured (solo) half gives every other figure.
	Duet = "duet"
)

// Record is one payment.
type Record struct {
	Case      string    `json:"case"`      // e.g. "Concurrency=20/TotalPayments=100"
	Phase     string    `json:"phase"`     // warmup | measure
	Iteration int       `json:"iteration"` // 0-based within its phase
	Worker    int       `json:"worker"`    // -1 in open loop
	Seq       int       `json:"seq"`       // 0-based within the iteration
	Payer     string    `json:"payer"`
	Payee     string    `json:"payee"`
	Mode      string    `json:"mode"`  // invoice | pregenerated | keysend
	Start     time.Time `json:"start"` // operation start (scheduled start in open loop)
	End       time.Time `json:"end"`
	// InvoiceNs is the time to create the invoice (0 when not measured).
	InvoiceNs int64 `json:"invoice_ns"`
	// PaymentNs is the time from sending to the terminal state.
	PaymentNs int64 `json:"payment_ns"`
	// QueueNs is how late an open-loop payment started after its schedule.
	QueueNs       int64  `json:"queue_ns,omitempty"`
	Status        string `json:"status"` // succeeded | failed | error | timeout | aborted
	FailureReason string `json:"failure_reason,omitempty"`
	Hops          int    `json:"hops,omitempty"`
	// Parts is how many HTLCs settled the payment (more than 1: multi-path);
	// Attempts counts every HTLC tried, failed ones included.
	Parts int `json:"parts,omitempty"`
	// GRPCCode is the gRPC status code of an RPC that failed (status error).
	GRPCCode string `json:"grpc_code,omitempty"`
	Attempts int    `json:"attempts,omitempty"`
}

// Status values.
const (
	Succeeded = "succeeded"
	Failed    = "failed"  // the node reported a terminal failure
	Error     = "error"   // the RPC itself failed
	TimedOut  = "timeout" // no terminal state within the harness's bound (payment timeout + 1 min)
	Aborted   = "aborted" // in flight when the harness stopped (interrupt, deadline, a dead node)
)

// ReasonInsufficientBalance is the failure reason LND gives, and lnbench's
// CLN payer maps to, when the payer's channels could not carry a payment:
// short of balance, or of a free HTLC slot.
const ReasonInsufficientBalance = "FAILURE_REASON_INSUFFICIENT_BALANCE"

// Latency is the whole measured operation.
func (r Record) Latency() time.Duration { return r.End.Sub(r.Start) }

// Writer appends records; safe for concurrent use. Each record is flushed to
// the OS as soon as it is written, so a killed harness loses nothing.
type Writer = jsonl.Writer[Record]

// Create opens path for appending.
func Create(path string) (*Writer, error) { return jsonl.Create[Record](path, "result stream") }

// Read decodes a whole stream. A torn last line (crash mid-write) is skipped.
func Read(r io.Reader) ([]Record, error) { return jsonl.Read[Record](r, "result stream") }

// ReadFile reads a stream from disk.
func ReadFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}

// ID is the case a record belongs to.
func (r Record) ID() string { return r.Case }
