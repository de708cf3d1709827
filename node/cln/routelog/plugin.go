// Package routelog tells the harness which route a Core Lightning payment
// took. No RPC of lightningd v26 says so for pay or xpay: their replies
// hold no route, listsendpays none, and the wallet's payments.route_nodes
// is NULL for parts sent with injectpaymentonion or sendonion, which is
// every part of both. xpay announces each part's route in a pay_part_start
// notification instead; the plugin here (the lnbench binary reached as
// PluginName) subscribes to it and appends one line per part to a log in
// the node's lightning dir, which the harness reads when the payment ends.
//
// The plugin protocol is JSON-RPC 2.0 over the plugin's stdin and stdout
// (CLN's doc/developers-guide/plugin-development); it is written here by
// hand because the Go plugin libraries for CLN (glightning) are
// unmaintained, and this plugin needs three messages of it.
package routelog

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// PluginName is the name lightningd starts the lnbench binary under (a
// symlink, or a second bind mount in a container), which makes it this
// plugin.
const PluginName = "lnbench-cln-plugin"

// FileName is the log the plugin writes in the node's lightning dir (the
// network's folder, as init's configuration names it).
const FileName = "lnbench-routes.log"

// Topic is the notification that carries a part's route (xpay's).
const Topic = "pay_part_start"

type request struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// partStart is what a part's notification says that the log keeps.
type partStart struct {
	PaymentHash string            `json:"payment_hash"`
	GroupID     uint64            `json:"groupid"`
	PartID      uint64            `json:"partid"`
	Hops        []json.RawMessage `json:"hops"`
}

// Stdin is the plugin's stdin, set for the poller, and the process kept to
// one OS thread of Go code: a part's notification arrives alone every few
// milliseconds, and each wake-up from a blocking read costs the Go runtime
// far more than the notification (a synthetic feed read by getrusage:
// 17 µs of CPU per notification back to back, 0.14–0.9 ms when 5–20 ms
// apart, on a busy machine), CPU the benchmark counts as the node's.
func Stdin() *os.File {
	runtime.GOMAXPROCS(1)
	if err := syscall.SetNonblock(0, true); err != nil {
		return os.Stdin
	}
	return os.NewFile(0, "/dev/stdin")
}

// Serve is the plugin: it answers lightningd's getmanifest and init, then
// logs each part's route until lightningd closes its stdin.
func Serve(in io.Reader, out io.Writer) error {
	dec := json.NewDecoder(bufio.NewReader(in))
	w := bufio.NewWriter(out)
	var log *os.File
	defer func() {
		if log != nil {
			log.Close()
		}
	}()
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("%s: reading lightningd's request: %w", PluginName, err)
		}
		switch req.Method {
		case "getmanifest":
			if err := reply(w, req.ID, map[string]any{
				"options": []any{}, "rpcmethods": []any{}, "subscriptions": []string{Topic},
				"nonnumericids": true, "dynamic": false,
			}); err != nil {
				return err
			}
		case "init":
			var p struct {
				Configuration struct {
					LightningDir string `json:"lightning-dir"`
				} `json:"configuration"`
			}
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return fmt.Errorf("%s: init: %w", PluginName, err)
			}
			f, err := os.OpenFile(filepath.Join(p.Configuration.LightningDir, FileName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
			if err != nil {
				return fmt.Errorf("%s: %w", PluginName, err)
			}
			log = f
			if err := reply(w, req.ID, map[string]any{}); err != nil {
				return err
			}
		case Topic:
			if log == nil {
				continue
			}
			var p map[string]partStart
			if err := json.Unmarshal(req.Params, &p); err != nil {
				continue // not a part we can read; the payment's hops stay unknown
			}
			part, ok := p[Topic]
			if !ok || part.PaymentHash == "" {
				continue
			}
			// One write per line: the harness reads whole lines only.
			if _, err := fmt.Fprintf(log, "%s %d %d %d\n", part.PaymentHash, part.GroupID, part.PartID, len(part.Hops)); err != nil {
				return fmt.Errorf("%s: %w", PluginName, err)
			}
		default:
			if len(req.ID) > 0 { // a request we do not serve: say so rather than leave it waiting
				if err := write(w, map[string]any{"jsonrpc": "2.0", "id": req.ID,
					"error": map[string]any{"code": -32601, "message": "unknown method " + req.Method}}); err != nil {
					return err
				}
			}
		}
	}
}

func reply(w *bufio.Writer, id json.RawMessage, result any) error {
	return write(w, map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

// write sends one message; lightningd reads messages separated by a blank line.
func write(w *bufio.Writer, msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	w.Write(b)
	w.WriteString("\n\n")
	return w.Flush()
}
