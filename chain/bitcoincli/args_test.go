package bitcoincli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestParseAsBcliCalls(t *testing.T) {
	// The shape of bcli's calls: options, -stdinrpcpass, -stdin, method;
	// password then params on stdin.
	inv, err := Parse([]string{"-regtest", "-datadir=/d", "-rpcclienttimeout=60", "-rpcconnect=btcd", "-rpcport=18334",
		"-rpcuser=u", "-stdinrpcpass", "-stdin", "getblock"}, strings.NewReader("secret\nabcd\n0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if inv.RPCPassword != "secret" || inv.Method != "getblock" || strings.Join(inv.Params, ",") != "abcd,0" ||
		inv.DataDir != "/d" || inv.RPCConnect != "btcd" || inv.RPCPort != "18334" || inv.Timeout != time.Minute {
		t.Fatalf("%+v", inv)
	}
	inv, err = Parse([]string{"-rpcuser=u", "-stdinrpcpass", "-rpcwait", "-rpcwaittimeout=30", "getnetworkinfo"}, strings.NewReader("p\n"))
	if err != nil || !inv.RPCWait || inv.WaitTimeout != 30*time.Second || inv.Method != "getnetworkinfo" || len(inv.Params) != 0 {
		t.Fatalf("%+v %v", inv, err)
	}
	for _, bad := range [][]string{{"-rpcuser=u"}, {"-nosuch", "getinfo"}, {"-rpcwaittimeout=x", "getinfo"}} {
		if _, err := Parse(bad, strings.NewReader("")); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	if _, err := Parse([]string{"-stdinrpcpass", "getinfo"}, strings.NewReader("")); err == nil {
		t.Error("-stdinrpcpass with empty stdin: no error")
	}
}

func TestFormatLikeBitcoinCLI(t *testing.T) {
	for raw, want := range map[string]string{
		`null`:           "",
		`"00ab"`:         "00ab",
		`123`:            "123",
		`{"a":1,"b":[]}`: "{\n  \"a\": 1,\n  \"b\": []\n}",
	} {
		got, err := Format(json.RawMessage(raw))
		if err != nil || got != want {
			t.Errorf("Format(%s) = %q %v, want %q", raw, got, err, want)
		}
	}
	for in, want := range map[string]string{"1e-05": "0.00001000", "0.5": "0.50000000", "50": "50.00000000"} {
		if got := BTC(in); got != want {
			t.Errorf("BTC(%s) = %s, want %s", in, got, want)
		}
	}
	out, err := printAmounts(json.RawMessage(`{"value":1e-05,"scriptPubKey":{"hex":"00"}}`), "value")
	if err != nil || !strings.Contains(out, `"value": 0.00001000`) {
		t.Errorf("gettxout value: %s %v", out, err)
	}
}

// An output a mempool transaction spends reads as nothing (bitcoind's
// null under include_mempool); one nobody spends is printed; a btcd
// without gettxspendingprevout leaves gettxout's answer as it is.
func TestGetTxOutSpentInMempool(t *testing.T) {
	out := `{"value":1,"scriptPubKey":{"hex":"00"}}`
	for _, tt := range []struct {
		name, spending string
		want           bool
	}{
		{"spent in the mempool", `[{"txid":"aa","vout":0,"spendingtxid":"bb"}]`, false},
		{"unspent", `[{"txid":"aa","vout":0}]`, true},
		{"no such method", "", true},
	} {
		c := fakeCaller{"gettxout": out}
		if tt.spending != "" {
			c["gettxspendingprevout"] = tt.spending
		}
		got, err := Do(c, "gettxout", []string{"aa", "0"})
		if err != nil || (got != "") == !tt.want {
			t.Errorf("%s: %q %v", tt.name, got, err)
		}
	}
}

// fakeCaller answers from a table, for the calls that do not need btcd.
type fakeCaller map[string]string

func (f fakeCaller) Call(method string, _ []json.RawMessage) (json.RawMessage, error) {
	if r, ok := f[method]; ok {
		return json.RawMessage(r), nil
	}
	return nil, &RPCError{Code: -32601, Message: "Method not found"}
}

func TestSynthesisedCalls(t *testing.T) {
	c := fakeCaller{"getblockcount": "450", "getblockchaininfo": `{"chain":"regtest","blocks":450,"headers":450}`}
	out, err := Do(c, "getblockchaininfo", nil)
	if err != nil || !strings.Contains(out, `"initialblockdownload": false`) || !strings.Contains(out, `"blocks": 450`) {
		t.Errorf("getblockchaininfo: %s %v", out, err)
	}
	out, err = Do(c, "estimatesmartfee", []string{"2", "CONSERVATIVE"})
	if err != nil || !strings.Contains(out, `"feerate": 0.00025000`) || !strings.Contains(out, `"blocks": 450`) {
		t.Errorf("estimatesmartfee: %s %v", out, err)
	}
	if _, err := Do(c, "estimatesmartfee", []string{"x"}); err == nil {
		t.Error("estimatesmartfee x: no error")
	}
	if _, err := Do(c, "nosuchmethod", nil); err == nil || err.(*RPCError).Code != -32601 {
		t.Errorf("unknown method: %v", err)
	}
}
