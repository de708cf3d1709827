package lnd

import (
	"testing"

	"github.com/lightningnetwork/lnd/lnrpc"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// fullSummary is what Pay reported when it decoded the whole message.
func fullSummary(p *lnrpc.Payment) paymentSummary {
	s := paymentSummary{status: p.Status, failure: p.FailureReason, feeMsat: p.FeeMsat, attempts: len(p.Htlcs)}
	for _, h := range p.Htlcs {
		if h.Status == lnrpc.HTLCAttempt_SUCCEEDED && h.Route != nil {
			s.parts++
			s.hops = max(s.hops, len(h.Route.Hops))
		}
	}
	return s
}

func hops(n int) []*lnrpc.Hop {
	out := make([]*lnrpc.Hop, n)
	for i := range out {
		out[i] = &lnrpc.Hop{ChanId: uint64(i + 1), PubKey: "02ab", AmtToForwardMsat: 1000, CustomRecords: map[uint64][]byte{5482373484: {1, 2}}}
	}
	return out
}

func TestPaymentSummaryMatchesTheFullDecode(t *testing.T) {
	for name, p := range map[string]*lnrpc.Payment{
		"one part": {Status: lnrpc.Payment_SUCCEEDED, FeeMsat: 1234, PaymentRequest: "lnsb1...", ValueMsat: 1000,
			Htlcs: []*lnrpc.HTLCAttempt{{Status: lnrpc.HTLCAttempt_SUCCEEDED, AttemptId: 7, Route: &lnrpc.Route{TotalAmtMsat: 1000, Hops: hops(2)}, Preimage: []byte{9}}}},
		"retried and split": {Status: lnrpc.Payment_SUCCEEDED, FeeMsat: 99, Htlcs: []*lnrpc.HTLCAttempt{
			{Status: lnrpc.HTLCAttempt_FAILED, Route: &lnrpc.Route{Hops: hops(4)}, Failure: &lnrpc.Failure{Code: lnrpc.Failure_TEMPORARY_CHANNEL_FAILURE}},
			{Status: lnrpc.HTLCAttempt_SUCCEEDED, Route: &lnrpc.Route{Hops: hops(1)}},
			{Status: lnrpc.HTLCAttempt_SUCCEEDED, Route: &lnrpc.Route{Hops: hops(3)}},
			{Status: lnrpc.HTLCAttempt_SUCCEEDED}, // no route: not a part
		}},
		"empty route": {Status: lnrpc.Payment_SUCCEEDED, Htlcs: []*lnrpc.HTLCAttempt{{Status: lnrpc.HTLCAttempt_SUCCEEDED, Route: &lnrpc.Route{}}}},
		"failed":      {Status: lnrpc.Payment_FAILED, FailureReason: lnrpc.PaymentFailureReason_FAILURE_REASON_NO_ROUTE, Htlcs: []*lnrpc.HTLCAttempt{{Status: lnrpc.HTLCAttempt_FAILED}}},
		"in flight":   {Status: lnrpc.Payment_IN_FLIGHT},
	} {
		b, err := proto.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var got paymentSummary
		if err := got.unmarshal(b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := fullSummary(p); got != want {
			t.Errorf("%s: summary %+v, full decode %+v", name, got, want)
		}
	}
}

// TestPaymentSummaryMerges: a message field sent twice merges in proto3;
// the summary reads it as the full decode does.
func TestPaymentSummaryMerges(t *testing.T) {
	a, _ := proto.Marshal(&lnrpc.Payment{Status: lnrpc.Payment_IN_FLIGHT, Htlcs: []*lnrpc.HTLCAttempt{{Status: lnrpc.HTLCAttempt_SUCCEEDED, Route: &lnrpc.Route{Hops: hops(1)}}}})
	b, _ := proto.Marshal(&lnrpc.Payment{Status: lnrpc.Payment_SUCCEEDED, FeeMsat: 5})
	wire := append(a, b...)
	var full lnrpc.Payment
	if err := proto.Unmarshal(wire, &full); err != nil {
		t.Fatal(err)
	}
	var got paymentSummary
	if err := got.unmarshal(wire); err != nil {
		t.Fatal(err)
	}
	if want := fullSummary(&full); got != want {
		t.Errorf("summary %+v, full decode %+v", got, want)
	}
}

func TestPaymentSummaryRefusesATornMessage(t *testing.T) {
	b, _ := proto.Marshal(&lnrpc.Payment{Status: lnrpc.Payment_SUCCEEDED, Htlcs: []*lnrpc.HTLCAttempt{{Route: &lnrpc.Route{Hops: hops(2)}}}})
	var s paymentSummary
	if err := s.unmarshal(b[:len(b)-3]); err == nil {
		t.Error("a torn message decoded")
	}
}

func TestSummaryCodecLeavesOtherMessagesToProto(t *testing.T) {
	b, _ := proto.Marshal(&lnrpc.AddInvoiceResponse{PaymentRequest: "lnsb1x", AddIndex: 3})
	var r lnrpc.AddInvoiceResponse
	if err := payCodec.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, &r); err != nil || r.PaymentRequest != "lnsb1x" || r.AddIndex != 3 {
		t.Errorf("got %v, %v", &r, err)
	}
	p, _ := proto.Marshal(&lnrpc.Payment{Status: lnrpc.Payment_FAILED, FailureReason: lnrpc.PaymentFailureReason_FAILURE_REASON_TIMEOUT})
	var s paymentSummary
	if err := payCodec.Unmarshal(mem.BufferSlice{mem.SliceBuffer(p)}, &s); err != nil || s.status != lnrpc.Payment_FAILED || s.failure.String() != "FAILURE_REASON_TIMEOUT" {
		t.Errorf("summary %+v, %v", s, err)
	}
	if payCodec.Name() != "proto" {
		t.Errorf("codec name %q: the request's content-type must stay proto", payCodec.Name())
	}
}
