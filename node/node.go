// Package node is the seam between scenarios and Lightning implementations:
// what a benchmark needs from a node, whatever software runs it.
package node

import (
	"context"
	"time"
)

// Info is a node's view of itself.
type Info struct {
	PubKey         string
	Alias          string
	Version        string
	BlockHeight    uint32
	SyncedToChain  bool
	SyncedToGraph  bool
	ActiveChannels int
	PendingChans   int
	Peers          int
}

// ChannelRequest asks a node to fund a channel to a peer.
type ChannelRequest struct {
	PeerPubKey  string
	CapacitySat int64
	PushSat     int64
}

// Invoice is a payable request.
type Invoice struct {
	PaymentRequest string
	PaymentHash    []byte
}

// Payment asks a node to pay: either a BOLT11 request or a keysend.
type Payment struct {
	PaymentRequest string
	KeysendDest    string // hex pubkey; used when PaymentRequest is empty
	AmountSat      int64  // for keysend
	Timeout        time.Duration
	FeeLimitSat    int64
	// Method is the implementation's payment command ("" = its default;
	// CLN: pay, xpay or sendpay).
	Method string
}

// PaymentResult is the terminal state of a payment.
type PaymentResult struct {
	Succeeded     bool
	FailureReason string // implementation's reason, e.g. FAILURE_REASON_NO_ROUTE
	Hops          int    // hops of the successful route (the longest part's, for MPP)
	Parts         int    // HTLCs that settled: 1, or the parts of a multi-path payment
	Attempts      int    // HTLC attempts, failed ones included (0: not reported)
	FeeMsat       int64
	// PaymentHash (hex) names a successful payment whose Hops the payer's
	// HopsReader knows after it returned ("" when Hops says it all).
	PaymentHash string
}

// HopsReader is a payer that learns a payment's route after the payment
// returned (CLN: its route log plugin). The load asks it once the payment
// is timed, so the reading never counts in the payment's latency.
type HopsReader interface {
	PaymentHops(paymentHash string) (int, bool)
}

// Disconnecter is a node that can drop its connection to a peer (by its
// public key), so that the next connection reestablishes their channels.
type Disconnecter interface {
	Disconnect(ctx context.Context, pubKey string) error
}

// Node is what scenarios need from a Lightning node.
type Node interface {
	Name() string
	// WaitReady returns once the node accepts every call the harness makes
	// (LND: its server is active, which comes after it reports synced).
	WaitReady(ctx context.Context) error
	Info(ctx context.Context) (Info, error)
	NewAddress(ctx context.Context) (string, error)
	ConfirmedBalance(ctx context.Context) (int64, error)
	Connect(ctx context.Context, pubKey, hostPort string) error
	// OpenChannels funds all requested channels in one transaction.
	OpenChannels(ctx context.Context, reqs []ChannelRequest) error
	// WaitActiveChannels returns once at least n channels are active.
	WaitActiveChannels(ctx context.Context, n int) error
	// WaitRoute returns once the node finds a route to dest for amtSat.
	WaitRoute(ctx context.Context, destPubKey string, amtSat int64) error
	AddInvoice(ctx context.Context, amtSat int64, memo string) (Invoice, error)
	Pay(ctx context.Context, p Payment) (PaymentResult, error)
	// ForwardedCount is the number of HTLCs this node has forwarded.
	ForwardedCount(ctx context.Context) (int, error)
	Close() error
}

// ChannelState is one channel's commitment state as one of its ends sees it.
type ChannelState struct {
	ChanPoint  string
	PeerPubKey string
	Initiator  bool // this end opened the channel
	// NumUpdates counts the channel's commitment updates so far (LND: the
	// height of its local commitment chain).
	NumUpdates uint64
	// PendingHTLCs are the HTLCs on the current commitment: in flight.
	PendingHTLCs int
	// MaxAcceptedHTLCs is the lower of both ends' max_accepted_htlcs: the
	// most HTLCs the channel can carry at once (0: unknown).
	MaxAcceptedHTLCs int
}

// ChannelReader is implemented by drivers that can read their channels'
// commitment state cheaply (LND); the bottleneck verdict uses it to tell a
// channel's serialized commitment pipeline from other bounds. Drivers
// without it (CLN) leave those figures unknown.
type ChannelReader interface {
	ChannelStates(ctx context.Context) ([]ChannelState, error)
}
