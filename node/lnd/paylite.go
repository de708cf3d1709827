package lnd

import (
	"fmt"

	"github.com/lightningnetwork/lnd/lnrpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
)

// paymentSummary is the part of an lnrpc.Payment update that Pay reports.
// Decoding the whole message (every HTLC's route, hop by hop, with its
// records) was a tenth of the harness's CPU at c=60; this reads the same
// figures straight from the wire.
type paymentSummary struct {
	status   lnrpc.Payment_PaymentStatus
	failure  lnrpc.PaymentFailureReason
	feeMsat  int64
	attempts int // HTLCs, failed ones included
	parts    int // HTLCs that settled with a route
	hops     int // the longest settled route's hops
}

// lnrpc field numbers read (lightning.proto).
const (
	paymentStatus        = 10
	paymentFeeMsat       = 12
	paymentHTLCs         = 14
	paymentFailureReason = 16
	htlcStatus           = 1
	htlcRoute            = 2
	routeHops            = 4
)

// unmarshal reads b with proto3 semantics for the fields above: the last
// scalar wins, and a message field seen twice merges (its repeated hops add up).
func (p *paymentSummary) unmarshal(b []byte) error {
	*p = paymentSummary{}
	return scan(b, func(num protowire.Number, v uint64, sub []byte) error {
		switch num {
		case paymentStatus:
			p.status = lnrpc.Payment_PaymentStatus(v)
		case paymentFeeMsat:
			p.feeMsat = int64(v)
		case paymentFailureReason:
			p.failure = lnrpc.PaymentFailureReason(v)
		case paymentHTLCs:
			p.attempts++
			status, hasRoute, hops := lnrpc.HTLCAttempt_IN_FLIGHT, false, 0
			err := scan(sub, func(num protowire.Number, v uint64, sub []byte) error {
				switch num {
				case htlcStatus:
					status = lnrpc.HTLCAttempt_HTLCStatus(v)
				case htlcRoute:
					hasRoute = true
					return scan(sub, func(num protowire.Number, _ uint64, _ []byte) error {
						if num == routeHops {
							hops++
						}
						return nil
					})
				}
				return nil
			})
			if err != nil {
				return err
			}
			if status == lnrpc.HTLCAttempt_SUCCEEDED && hasRoute {
				p.parts++
				p.hops = max(p.hops, hops)
			}
		}
		return nil
	})
}

// scan calls fn for each field of a message: varints with v, length-
// delimited fields with sub; other wire types are skipped.
func scan(b []byte, fn func(num protowire.Number, v uint64, sub []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var v uint64
		var sub []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			sub, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if typ == protowire.VarintType || typ == protowire.BytesType {
			if err := fn(num, v, sub); err != nil {
				return err
			}
		}
	}
	return nil
}

// summaryCodec is gRPC's proto codec, except that replies decoded into a
// *paymentSummary are read by it. Its name stays "proto".
type summaryCodec struct{ encoding.CodecV2 }

var payCodec = summaryCodec{encoding.GetCodecV2(proto.Name)}

func (c summaryCodec) Unmarshal(data mem.BufferSlice, v any) error {
	s, ok := v.(*paymentSummary)
	if !ok {
		return c.CodecV2.Unmarshal(data, v)
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	if err := s.unmarshal(buf.ReadOnlyData()); err != nil {
		return fmt.Errorf("payment update: %v", err)
	}
	return nil
}
