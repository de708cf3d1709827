package load

import (
	"context"
	"errors"

	"google.golang.org/grpc/status"

	"github.com/lnbench/lnbench/record/result"
)

// setError records why an RPC of a payment failed: aborted when the
// harness's own context ended (interrupt, run deadline, a dead node), timed
// out when the payment's bound passed, else an error with its gRPC code.
func setError(rec *result.Record, ctx, bound context.Context, prefix string, err error) {
	switch {
	case ctx.Err() != nil:
		rec.Status, rec.FailureReason = result.Aborted, prefix+"stopped by the harness: "+ctx.Err().Error()
	case bound != nil && errors.Is(bound.Err(), context.DeadlineExceeded):
		rec.Status, rec.FailureReason = result.TimedOut, prefix+"no terminal state within the payment's bound"
	default:
		rec.Status, rec.FailureReason = result.Error, prefix+shortErr(err)
	}
	if s, ok := status.FromError(err); ok && err != nil {
		rec.GRPCCode = s.Code().String()
	}
}
