package cln

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/lnbench/lnbench/internal/wait"
	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/node/cln/routelog"
	"github.com/lnbench/lnbench/nodespec"
)

// defaultFinalCltv is CLN's invoice default (--cltv-final), for routes
// found before there is an invoice.
const defaultFinalCltv = 18

// Payment methods a CLN payer can use (node.Payment.Method).
const (
	MethodPay     = "pay"     // the pay plugin (default)
	MethodXpay    = "xpay"    // CLN's newer pay (askrene routing)
	MethodSendpay = "sendpay" // sendpay + waitsendpay along a route fetched once per payee
)

// Driver is one CLN node as the harness sees it.
type Driver struct {
	name   string
	rpc    *Client
	labels atomic.Int64
	prefix string
	// routes caches a route per payee for sendpay (CLN's own benchmark,
	// tests/benchmark.py, pays along a fixed route).
	routes routeCache
	// parts is the node's route log: the hops of what pay, xpay and
	// xkeysend sent, which their replies do not tell (nil: unknown).
	parts *routelog.Log
}

// NodeDriver is CLN's entry in the driver registry.
func NodeDriver() node.Driver {
	return node.Driver{
		Dial: func(name string, ep node.Endpoint) (node.Node, error) {
			d, err := Dial(name, ep.RPCHost)
			if err != nil {
				return nil, err
			}
			if ep.RouteLog != "" {
				d.parts = routelog.Open(ep.RouteLog)
			}
			if ep.Database == "" {
				return d, nil
			}
			return &DBNode{Driver: d, source: ep.Database}, nil
		},
		Flags:   Flags,
		Profile: Profile,
		// CLN accepts 30 HTLCs in flight from a peer, LND 483: tuned lifts
		// CLN's to LND's, so the implementations meet the same limit.
		DefaultProfile: nodespec.ProfileTuned,
		BlockWait:      PollSeconds * time.Second,
	}
}

// Dial makes a driver for the node whose RPC is at rpcHost ("unix:PATH" or
// host:port); it connects on the first call.
func Dial(name, rpcHost string) (*Driver, error) {
	c, err := NewClient(rpcHost)
	if err != nil {
		return nil, fmt.Errorf("node %s: %v", name, err)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return &Driver{name: name, rpc: c, prefix: "lnbench-" + hex.EncodeToString(b) + "-"}, nil
}

func (d *Driver) Name() string { return d.name }
func (d *Driver) Close() error {
	if d.parts != nil {
		d.parts.Close()
	}
	return d.rpc.Close()
}

// routeLogWait bounds the wait for the plugin's line: it is written when
// the part starts, so it is there by the payment's end unless the plugin
// has not been scheduled since.
const routeLogWait = 100 * time.Millisecond

// PaymentHops reads the route log for a payment pay, xpay or xkeysend made.
func (d *Driver) PaymentHops(paymentHash string) (int, bool) {
	if d.parts == nil {
		return 0, false
	}
	return d.parts.Hops(paymentHash, routeLogWait)
}

func (d *Driver) call(ctx context.Context, method string, params map[string]any, out any) error {
	if err := d.rpc.Call(ctx, method, params, out); err != nil {
		return fmt.Errorf("%s: %s: %w", d.name, method, err)
	}
	return nil
}

type getinfo struct {
	ID               string `json:"id"`
	Alias            string `json:"alias"`
	Version          string `json:"version"`
	BlockHeight      uint32 `json:"blockheight"`
	NumPeers         int    `json:"num_peers"`
	NumActive        int    `json:"num_active_channels"`
	NumPending       int    `json:"num_pending_channels"`
	WarnBitcoindSync string `json:"warning_bitcoind_sync"`
	WarnLightningd   string `json:"warning_lightningd_sync"`
}

// WaitReady returns once lightningd answers getinfo: its RPC socket exists
// only after startup, and every command works from then on.
func (d *Driver) WaitReady(ctx context.Context) error {
	return poll(ctx, 100*time.Millisecond, func() (bool, error) {
		err := d.call(ctx, "getinfo", nil, nil)
		return err == nil, err
	})
}

func (d *Driver) Info(ctx context.Context) (node.Info, error) {
	var gi getinfo
	if err := d.call(ctx, "getinfo", nil, &gi); err != nil {
		return node.Info{}, err
	}
	synced := gi.WarnBitcoindSync == "" && gi.WarnLightningd == ""
	return node.Info{PubKey: gi.ID, Alias: gi.Alias, Version: gi.Version, BlockHeight: gi.BlockHeight,
		SyncedToChain: synced, SyncedToGraph: synced, ActiveChannels: gi.NumActive, PendingChans: gi.NumPending, Peers: gi.NumPeers}, nil
}

// NewAddress is a P2WPKH address: LND's and btcd's faucet pay it alike.
func (d *Driver) NewAddress(ctx context.Context) (string, error) {
	var r struct {
		Bech32 string `json:"bech32"`
	}
	if err := d.call(ctx, "newaddr", map[string]any{"addresstype": "bech32"}, &r); err != nil {
		return "", err
	}
	return r.Bech32, nil
}

func (d *Driver) ConfirmedBalance(ctx context.Context) (int64, error) {
	var r struct {
		Outputs []struct {
			AmountMsat int64  `json:"amount_msat"`
			Status     string `json:"status"`
			Reserved   bool   `json:"reserved"`
		} `json:"outputs"`
	}
	if err := d.call(ctx, "listfunds", nil, &r); err != nil {
		return 0, err
	}
	var sat int64
	for _, o := range r.Outputs {
		if o.Status == "confirmed" && !o.Reserved {
			sat += o.AmountMsat / 1000
		}
	}
	return sat, nil
}

func (d *Driver) Connect(ctx context.Context, pubKey, hostPort string) error {
	return d.call(ctx, "connect", map[string]any{"id": pubKey + "@" + hostPort}, nil)
}

// Disconnect drops the connection to the peer with pubKey, channels or
// not (force).
func (d *Driver) Disconnect(ctx context.Context, pubKey string) error {
	return d.call(ctx, "disconnect", map[string]any{"id": pubKey, "force": true}, nil)
}

// OpenChannels funds every channel in one transaction (multifundchannel).
func (d *Driver) OpenChannels(ctx context.Context, reqs []node.ChannelRequest) error {
	dests := make([]map[string]any, len(reqs))
	for i, r := range reqs {
		dest := map[string]any{"id": r.PeerPubKey, "amount": r.CapacitySat}
		if r.PushSat > 0 {
			dest["push_msat"] = r.PushSat * 1000
		}
		dests[i] = dest
	}
	return d.call(ctx, "multifundchannel", map[string]any{"destinations": dests}, nil)
}

type peerChannel struct {
	PeerID        string `json:"peer_id"`
	PeerConnected bool   `json:"peer_connected"`
	State         string `json:"state"`
}

// WaitActiveChannels polls listpeerchannels: CLN streams no channel
// events to RPC clients without a plugin.
func (d *Driver) WaitActiveChannels(ctx context.Context, n int) error {
	have := 0
	err := poll(ctx, 100*time.Millisecond, func() (bool, error) {
		var r struct {
			Channels []peerChannel `json:"channels"`
		}
		if err := d.call(ctx, "listpeerchannels", nil, &r); err != nil {
			return false, err
		}
		have = 0
		for _, c := range r.Channels {
			if c.State == "CHANNELD_NORMAL" && c.PeerConnected {
				have++
			}
		}
		return have >= n, nil
	})
	if err != nil {
		return fmt.Errorf("%s: waiting for %d channels in CHANNELD_NORMAL (have %d): %w", d.name, n, have, err)
	}
	return nil
}

// WaitRoute polls getroute until the graph has a route to dest.
func (d *Driver) WaitRoute(ctx context.Context, dest string, amtSat int64) error {
	return poll(ctx, 100*time.Millisecond, func() (bool, error) {
		_, err := d.route(ctx, dest, amtSat*1000, defaultFinalCltv)
		return err == nil, err
	})
}

func (d *Driver) AddInvoice(ctx context.Context, amtSat int64, memo string) (node.Invoice, error) {
	var r struct {
		Bolt11      string `json:"bolt11"`
		PaymentHash string `json:"payment_hash"`
	}
	label := d.prefix + fmt.Sprint(d.labels.Add(1))
	if memo == "" {
		memo = "lnbench"
	}
	if err := d.call(ctx, "invoice", map[string]any{"amount_msat": amtSat * 1000, "label": label, "description": memo}, &r); err != nil {
		return node.Invoice{}, err
	}
	hash, err := hex.DecodeString(r.PaymentHash)
	if err != nil {
		return node.Invoice{}, fmt.Errorf("%s: invoice: payment_hash %q: %v", d.name, r.PaymentHash, err)
	}
	return node.Invoice{PaymentRequest: r.Bolt11, PaymentHash: hash}, nil
}

// ForwardedCount counts settled forwards.
func (d *Driver) ForwardedCount(ctx context.Context) (int, error) {
	var r struct {
		Forwards []struct{} `json:"forwards"`
	}
	if err := d.call(ctx, "listforwards", map[string]any{"status": "settled"}, &r); err != nil {
		return 0, err
	}
	return len(r.Forwards), nil
}

// poll calls check every interval until it reports done, bounded by ctx;
// the error names the last failed check.
func poll(ctx context.Context, interval time.Duration, check func() (bool, error)) error {
	var last error
	err := wait.Until(ctx, interval, func() bool {
		ok, err := check()
		last = err
		return ok
	})
	if err != nil && last != nil {
		return fmt.Errorf("%w (last: %v)", err, last)
	}
	return err
}

// rpcCode is the code of a JSON-RPC error reply in err's chain, or 0.
func rpcCode(err error) int {
	var e *RPCError
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

func isNoRoute(msg string) bool {
	return strings.Contains(strings.ToLower(msg), "no route") || strings.Contains(strings.ToLower(msg), "could not find a route")
}
