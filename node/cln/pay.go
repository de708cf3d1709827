package cln

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/lnbench/lnbench/node"
)

// Pay pays a BOLT11 request with the payment's method, or sends a keysend.
// A payment that fails is a result with a reason, not an error; errors are
// for calls that did not reach a terminal state.
func (d *Driver) Pay(ctx context.Context, p node.Payment) (node.PaymentResult, error) {
	timeout := p.Timeout
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	fee := p.FeeLimitSat
	if fee == 0 {
		fee = 1000
	}
	retry := max(1, int(timeout/time.Second))
	if p.PaymentRequest == "" {
		// keysend is deprecated in v26; xkeysend routes with askrene as xpay does.
		return d.payCall(ctx, "xkeysend", map[string]any{
			"destination": p.KeysendDest, "amount_msat": p.AmountSat * 1000, "maxfee": fee * 1000, "retry_for": retry,
		})
	}
	switch p.Method {
	case "", MethodPay:
		return d.payCall(ctx, "pay", map[string]any{"bolt11": p.PaymentRequest, "maxfee": fee * 1000, "retry_for": retry})
	case MethodXpay:
		return d.payCall(ctx, "xpay", map[string]any{"invstring": p.PaymentRequest, "maxfee": fee * 1000, "retry_for": retry})
	case MethodSendpay:
		return d.sendpay(ctx, p.PaymentRequest, timeout)
	}
	return node.PaymentResult{}, fmt.Errorf("%s: payment method %q: CLN pays with pay, xpay or sendpay", d.name, p.Method)
}

// payReply is what pay, xpay and xkeysend answer on success.
type payReply struct {
	AmountMsat      int64  `json:"amount_msat"`
	AmountSentMsat  int64  `json:"amount_sent_msat"`
	Parts           int    `json:"parts"`            // pay, keysend
	SuccessfulParts int    `json:"successful_parts"` // xpay
	FailedParts     int    `json:"failed_parts"`     // xpay
	Status          string `json:"status"`
	PaymentHash     string `json:"payment_hash"` // pay, xkeysend
	PaymentPreimage string `json:"payment_preimage"`
}

// hash is the payment's hash: xpay's reply gives only the preimage.
func (r payReply) hash() string {
	if r.PaymentHash != "" || r.PaymentPreimage == "" {
		return r.PaymentHash
	}
	pre, err := hex.DecodeString(r.PaymentPreimage)
	if err != nil {
		return ""
	}
	h := sha256.Sum256(pre)
	return hex.EncodeToString(h[:])
}

// payCall runs pay, xpay or xkeysend: an error reply with one of pay's
// codes is a failed payment, not an error.
func (d *Driver) payCall(ctx context.Context, method string, params map[string]any) (node.PaymentResult, error) {
	var r payReply
	err := d.rpc.Call(ctx, method, params, &r)
	if err != nil {
		if reason, ok := failureReason(err); ok {
			return node.PaymentResult{FailureReason: reason}, nil
		}
		return node.PaymentResult{}, fmt.Errorf("%s: %s: %w", d.name, method, err)
	}
	parts := max(r.Parts, r.SuccessfulParts, 1)
	return node.PaymentResult{Succeeded: true, Parts: parts, Attempts: parts + r.FailedParts, FeeMsat: r.AmountSentMsat - r.AmountMsat, PaymentHash: r.hash()}, nil
}

// failureReason names a payment's failure as LND's reasons do, so reports
// count CLN and LND failures alike; ok is false for errors that are not a
// payment's outcome (bad params, a lost connection).
func failureReason(err error) (string, bool) {
	code := rpcCode(err)
	msg := strings.ToLower(err.Error())
	switch {
	case code == 0:
		return "", false
	case strings.Contains(msg, "insufficient") || strings.Contains(msg, "not enough"):
		return "FAILURE_REASON_INSUFFICIENT_BALANCE", true
	case code == 205 || code == 209 || isNoRoute(msg):
		return "FAILURE_REASON_NO_ROUTE", true
	case code == 203 || code == 202:
		return "FAILURE_REASON_INCORRECT_PAYMENT_DETAILS", true
	case code == 200 || code == 210 || code == 204 || code == 206 || code == 207 || code == 208 || code == 201:
		return fmt.Sprintf("FAILURE_REASON_ERROR (CLN %d)", code), true
	}
	return "", false
}

// routeCache holds one route per payee and amount for sendpay.
type routeCache struct {
	mu   sync.Mutex
	m    map[string]json.RawMessage
	self string
}

func (d *Driver) route(ctx context.Context, dest string, amountMsat int64, finalCltv int) (json.RawMessage, error) {
	key := fmt.Sprintf("%s/%d", dest, amountMsat)
	d.routes.mu.Lock()
	r, ok := d.routes.m[key]
	d.routes.mu.Unlock()
	if ok {
		return r, nil
	}
	self, err := d.selfID(ctx)
	if err != nil {
		return nil, err
	}
	// getroute is deprecated in v26; getroutes (askrene) is its successor.
	// The auto layers add our own channels before they are announced.
	var reply struct {
		Routes []struct {
			Path []struct {
				SCIDDir   string `json:"short_channel_id_dir"`
				NodeOut   string `json:"node_id_out"`
				AmountOut int64  `json:"amount_out_msat"`
				CltvOut   int    `json:"cltv_out"`
			} `json:"path"`
		} `json:"routes"`
	}
	if err := d.call(ctx, "getroutes", map[string]any{"source": self, "destination": dest, "amount_msat": amountMsat,
		"layers": []string{"auto.localchans", "auto.sourcefree"}, "maxfee_msat": max(amountMsat, 1_000_000), "final_cltv": finalCltv}, &reply); err != nil {
		return nil, err
	}
	if len(reply.Routes) == 0 {
		return nil, fmt.Errorf("%s: getroutes: no route to %s", d.name, dest)
	}
	type hop struct {
		ID         string `json:"id"`
		Channel    string `json:"channel"`
		Direction  int    `json:"direction"`
		AmountMsat int64  `json:"amount_msat"`
		Delay      int    `json:"delay"`
	}
	var hops []hop
	for _, h := range reply.Routes[0].Path {
		scid, dir, _ := strings.Cut(h.SCIDDir, "/")
		hops = append(hops, hop{ID: h.NodeOut, Channel: scid, Direction: map[string]int{"1": 1}[dir], AmountMsat: h.AmountOut, Delay: h.CltvOut})
	}
	r, err = json.Marshal(hops)
	if err != nil {
		return nil, err
	}
	d.routes.mu.Lock()
	if d.routes.m == nil {
		d.routes.m = map[string]json.RawMessage{}
	}
	d.routes.m[key] = r
	d.routes.mu.Unlock()
	return r, nil
}

// selfID is the node's own public key (fetched once).
func (d *Driver) selfID(ctx context.Context) (string, error) {
	d.routes.mu.Lock()
	id := d.routes.self
	d.routes.mu.Unlock()
	if id != "" {
		return id, nil
	}
	info, err := d.Info(ctx)
	if err != nil {
		return "", err
	}
	d.routes.mu.Lock()
	d.routes.self = info.PubKey
	d.routes.mu.Unlock()
	return info.PubKey, nil
}

// sendpay pays along a route found once per payee (CLN's own benchmark).
func (d *Driver) sendpay(ctx context.Context, bolt11 string, timeout time.Duration) (node.PaymentResult, error) {
	var inv struct {
		Payee         string `json:"payee"`
		AmountMsat    int64  `json:"amount_msat"`
		PaymentHash   string `json:"payment_hash"`
		PaymentSecret string `json:"payment_secret"`
		FinalCltv     int    `json:"min_final_cltv_expiry"`
	}
	if err := d.call(ctx, "decode", map[string]any{"string": bolt11}, &inv); err != nil {
		return node.PaymentResult{}, err
	}
	route, err := d.route(ctx, inv.Payee, inv.AmountMsat, inv.FinalCltv)
	if err != nil {
		if reason, ok := failureReason(err); ok {
			return node.PaymentResult{FailureReason: reason}, nil
		}
		return node.PaymentResult{}, err
	}
	var hops []json.RawMessage
	_ = json.Unmarshal(route, &hops)
	err = d.rpc.Call(ctx, "sendpay", map[string]any{"route": route, "payment_hash": inv.PaymentHash, "payment_secret": inv.PaymentSecret,
		"amount_msat": inv.AmountMsat, "bolt11": bolt11}, nil)
	if err == nil {
		var r struct {
			AmountMsat     int64 `json:"amount_msat"`
			AmountSentMsat int64 `json:"amount_sent_msat"`
		}
		err = d.rpc.Call(ctx, "waitsendpay", map[string]any{"payment_hash": inv.PaymentHash, "timeout": max(1, int(timeout/time.Second))}, &r)
		if err == nil {
			return node.PaymentResult{Succeeded: true, Parts: 1, Attempts: 1, Hops: len(hops), FeeMsat: r.AmountSentMsat - r.AmountMsat}, nil
		}
	}
	if reason, ok := failureReason(err); ok {
		d.routes.mu.Lock()
		delete(d.routes.m, fmt.Sprintf("%s/%d", inv.Payee, inv.AmountMsat)) // the next payment looks again
		d.routes.mu.Unlock()
		return node.PaymentResult{FailureReason: reason, Attempts: 1}, nil
	}
	return node.PaymentResult{}, fmt.Errorf("%s: sendpay: %w", d.name, err)
}
