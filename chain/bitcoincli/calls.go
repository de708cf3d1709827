package bitcoincli

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Bitcoin Core's RPC error codes that bcli reads through the exit code
// (bitcoin-cli exits with the code's absolute value).
const (
	codeMisc           = -1
	codeInvalidAddress = -5
	codeInvalidParam   = -8
	codeAlreadyInChain = -27
	codeMethodNotFound = -32601
)

// RPCError is a JSON-RPC error as bitcoin-cli prints it.
type RPCError struct {
	Code    int
	Message string
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("error code: %d\nerror message:\n%s", e.Code, e.Message)
}

// Caller sends one JSON-RPC request to btcd and returns its result, an
// *RPCError for an error reply, or another error when btcd was not reached.
type Caller interface {
	Call(method string, params []json.RawMessage) (json.RawMessage, error)
}

// Fixed answers for what btcd has no notion of on a private chain. The
// feerate is what LND falls back to on btcd without fee data (25 sat/vB),
// so LND and CLN peers agree on channel feerates in mixed networks.
const (
	// Version is the bitcoind version the shim claims: bcli wants ≥ 22.0
	// and uses getblockfrompeer from 23.0 (answered, never needed unpruned).
	Version         = 260000
	FeeRateBTCPerKB = "0.00025000"
	MinFeeBTCPerKB  = "0.00001000"
)

// Do runs one bitcoin-cli method against btcd and returns what
// bitcoin-cli would print (without the trailing newline).
func Do(c Caller, method string, params []string) (string, error) {
	switch method {
	case "echo":
		return print(jsonStrings(params))
	case "getnetworkinfo":
		return print(map[string]any{
			"version": Version, "subversion": "/lnbench-bitcoin-cli:btcd/", "protocolversion": 70016,
			"localservices": "0000000000000409", "localrelay": true, "networkactive": true,
			"connections": 0, "relayfee": json.Number(MinFeeBTCPerKB), "incrementalfee": json.Number(MinFeeBTCPerKB),
			"warnings": "",
		})
	case "getblockchaininfo":
		raw, err := c.Call("getblockchaininfo", nil)
		if err != nil {
			return "", err
		}
		var info map[string]any
		if err := decode(raw, &info); err != nil {
			return "", err
		}
		info["initialblockdownload"] = false // btcd has no such field; a private chain is never downloading
		return print(info)
	case "getblockhash":
		h, err := intParam(params, 0, "height")
		if err != nil {
			return "", err
		}
		res, err := callRaw(c, "getblockhash", h)
		if rpcErr, ok := err.(*RPCError); ok && rpcErr.Code == codeMisc {
			// btcd: -1 "Block number out of range"; bitcoind: -8.
			return "", &RPCError{Code: codeInvalidParam, Message: "Block height out of range"}
		}
		return res, err
	case "getblock":
		if len(params) < 1 {
			return "", &RPCError{Code: codeMisc, Message: "getblock \"blockhash\" ( verbosity )"}
		}
		verbosity := int64(1)
		if len(params) > 1 {
			v, err := intParam(params, 1, "verbosity")
			if err != nil {
				return "", err
			}
			verbosity = v
		}
		return callRaw(c, "getblock", params[0], verbosity)
	case "estimatesmartfee":
		if _, err := intParam(params, 0, "conf_target"); err != nil {
			return "", err
		}
		tip, err := c.Call("getblockcount", nil)
		if err != nil {
			return "", err
		}
		return print(map[string]any{"feerate": json.Number(FeeRateBTCPerKB), "blocks": json.Number(strings.TrimSpace(string(tip)))})
	case "getmempoolinfo":
		raw, err := c.Call("getmempoolinfo", nil)
		if err != nil {
			return "", err
		}
		var info map[string]any
		if err := decode(raw, &info); err != nil {
			return "", err
		}
		info["loaded"] = true
		info["mempoolminfee"] = json.Number(MinFeeBTCPerKB)
		info["minrelaytxfee"] = json.Number(MinFeeBTCPerKB)
		return print(info)
	case "gettxout":
		if len(params) < 2 {
			return "", &RPCError{Code: codeMisc, Message: "gettxout \"txid\" n ( include_mempool )"}
		}
		vout, err := intParam(params, 1, "n")
		if err != nil {
			return "", err
		}
		raw, err := c.Call("gettxout", rawParams(params[0], vout, true))
		if rpcErr, ok := err.(*RPCError); ok && rpcErr.Code == codeInvalidAddress {
			return "", nil // bitcoind answers null for an unknown transaction; btcd errs
		}
		if err != nil {
			return "", err
		}
		if string(raw) != "null" && spentInMempool(c, params[0], vout) {
			return "", nil
		}
		return printAmounts(raw, "value")
	case "sendrawtransaction":
		if len(params) < 1 {
			return "", &RPCError{Code: codeMisc, Message: "sendrawtransaction \"hexstring\" ( maxfeerate )"}
		}
		// bitcoind's second param is a max feerate (0 = any); btcd's is allowhighfees.
		allowHigh := len(params) > 1 && params[1] == "0"
		res, err := callRaw(c, "sendrawtransaction", params[0], allowHigh)
		if rpcErr, ok := err.(*RPCError); ok && strings.Contains(rpcErr.Message, "already have transaction") {
			// bitcoind returns the txid of a transaction already in its mempool.
			return txidOf(c, params[0])
		}
		return res, err
	case "getpeerinfo":
		return "[]", nil // not pruned: bcli asks peers only for blocks it cannot get
	case "getblockcount":
		return callRaw(c, method)
	}
	return "", &RPCError{Code: codeMethodNotFound, Message: "Method not found"}
}

// spentInMempool tells whether a mempool transaction spends the output.
// bitcoind's gettxout with include_mempool (bitcoin-cli's default, what
// bcli asks) answers null for such an output; btcd's still returns it, so
// the shim asks btcd's mempool. A btcd without gettxspendingprevout (before
// v0.24) answers as before.
func spentInMempool(c Caller, txid string, vout int64) bool {
	raw, err := c.Call("gettxspendingprevout", rawParams([]map[string]any{{"txid": txid, "vout": vout}}))
	if err != nil {
		return false
	}
	var spends []struct {
		SpendingTxid string `json:"spendingtxid"`
	}
	return decode(raw, &spends) == nil && len(spends) == 1 && spends[0].SpendingTxid != ""
}

// txidOf decodes a raw transaction through btcd to print its id.
func txidOf(c Caller, hex string) (string, error) {
	raw, err := c.Call("decoderawtransaction", rawParams(hex))
	if err != nil {
		return "", err
	}
	var tx struct {
		Txid string `json:"txid"`
	}
	if err := decode(raw, &tx); err != nil {
		return "", err
	}
	return tx.Txid, nil
}

func callRaw(c Caller, method string, params ...any) (string, error) {
	raw, err := c.Call(method, rawParams(params...))
	if err != nil {
		return "", err
	}
	return Format(raw)
}

func rawParams(params ...any) []json.RawMessage {
	out := make([]json.RawMessage, len(params))
	for i, p := range params {
		b, _ := json.Marshal(p)
		out[i] = b
	}
	return out
}

func intParam(params []string, i int, name string) (int64, error) {
	if len(params) <= i {
		return 0, &RPCError{Code: codeMisc, Message: "missing " + name}
	}
	n, err := strconv.ParseInt(params[i], 10, 64)
	if err != nil {
		return 0, &RPCError{Code: -3, Message: "JSON value of type string is not of expected type number"}
	}
	return n, nil
}

func jsonStrings(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func decode(raw json.RawMessage, v any) error {
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber() // keep btcd's numbers as written
	return d.Decode(v)
}
