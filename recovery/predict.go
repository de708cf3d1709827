package recovery

import (
	"time"

	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/record/result"
)

// roundTripsPerHop is how many round trips between a hop's two peers a
// payment waits for: BOLT 2's commitment exchange locks the HTLC in
// (update_add_htlc and commitment_signed, revoke_and_ack and
// commitment_signed, revoke_and_ack), then the fulfil is locked in the same
// way before LND reports the payment. Measured: a 100 ms delay on the
// payee of AlicePaysBob, the harness's AddInvoice exempt, adds about 290 ms
// to the median payment (docs/faults.md).
const roundTripsPerHop = 3

// predictedAdded is the latency a delay fault adds to payment r: the delay
// (added to every round trip through the target) times the round trips of
// the route's hops the target takes part in. Routes are not recorded, so
// it is an upper bound: a node that is neither payer nor payee is taken to
// be on a multi-hop route (two hops), a link to be on it unless the route
// is one hop between other nodes. Zero for other faults and for the chain.
func predictedAdded(f faults.Record, r result.Record) time.Duration {
	if f.Kind != faults.Delay {
		return 0
	}
	s, err := faults.Parse(f.Spec)
	if err != nil || s.Delay <= 0 {
		return 0
	}
	return time.Duration(roundTripsPerHop*hopsTouching(f.Target, r)) * s.Delay
}

// hopsTouching counts the hops of r's route that target (an actor, or a
// link "a~b") may take part in.
func hopsTouching(target string, r result.Record) int {
	ends := func(x string) bool { return x == r.Payer || x == r.Payee }
	if a, b, link := cutLink(target); link {
		if r.Hops == 1 && !(ends(a) && ends(b)) {
			return 0
		}
		return 1
	}
	switch {
	case target == faults.Chain:
		return 0
	case ends(target):
		return 1
	case r.Hops == 1:
		return 0 // a direct payment between two other nodes
	}
	return 2
}

func cutLink(target string) (a, b string, ok bool) {
	for i := 0; i < len(target); i++ {
		if target[i] == '~' {
			return target[:i], target[i+1:], true
		}
	}
	return "", "", false
}
