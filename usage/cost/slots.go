package cost

import (
	"fmt"

	"github.com/lnbench/lnbench/record/result"
)

// SlotsWarning explains a case's insufficient-balance failures (the count
// of its measured payments that failed with result.ReasonInsufficientBalance,
// as the payment analysis counts them) when the channels had the balance
// but not the HTLC slots: LND refuses a new HTLC (and reports insufficient
// balance) when the commitment holds max_accepted_htlcs, and a settled HTLC
// keeps its slot until both sides have signed its removal, so a channel
// fills up with more than half its slots in flight (measured: LND paid
// 3,000 of 3,000 one-sat payments at Concurrency 240 over one channel,
// failed 2% at 320 and 19% at 480; docs/measured.md). "" when nothing
// failed for that reason or the busiest channel never held more than half
// its slots in a reading.
func (c Case) SlotsWarning(failures int) string {
	if failures == 0 || c.Channels == nil || len(c.Channels.Channels) == 0 {
		return ""
	}
	b := c.Channels.busiest()
	if b.MaxAccepted == 0 || 2*b.MaxPending <= b.MaxAccepted {
		return ""
	}
	return fmt.Sprintf("%s: %d payment(s) failed with %s while %s held up to %d HTLCs in flight of its %d slots (read about once a second): a commitment without a free HTLC slot fails a payment with this reason, and a settled HTLC keeps its slot until both sides sign its removal; keep the HTLCs in flight per channel at or below %d (half the slots: lower Concurrency, or add parallel channels)",
		c.ID, failures, result.ReasonInsufficientBalance, b.Ends, b.MaxPending, b.MaxAccepted, b.MaxAccepted/2)
}
