package routelog

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lightningd's side of the conversation, as v26 writes it: requests
// separated by blank lines, a plugin notification forwarded with its
// origin and its payload under the topic's name.
func conversation(dir string) string {
	part := func(hash string, partid, hops int) string {
		hs := make([]string, hops)
		for i := range hs {
			hs[i] = `{"next_node":"02aa","short_channel_id":"103x1x0","direction":1,"channel_in_msat":1000,"channel_out_msat":1000}`
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"pay_part_start","origin":"xpay","params":{"pay_part_start":{"payment_hash":"%s","groupid":1,"partid":%d,"total_payment_msat":2000,"attempt_msat":1000,"hops":[%s]}}}`,
			hash, partid, strings.Join(hs, ","))
	}
	return strings.Join([]string{
		`{"jsonrpc":"2.0","id":"cln:getmanifest#1","method":"getmanifest","params":{"allow-deprecated-apis":false}}`,
		`{"jsonrpc":"2.0","id":"cln:init#2","method":"init","params":{"options":{},"configuration":{"lightning-dir":"` + dir + `","rpc-file":"lightning-rpc"}}}`,
		part("AB01", 1, 3),
		part("ab01", 2, 2),
		`{"jsonrpc":"2.0","method":"pay_part_start","origin":"xpay","params":{"pay_part_start":"not an object"}}`,
		part("cd02", 1, 1),
		`{"jsonrpc":"2.0","id":7,"method":"hello","params":{}}`,
	}, "\n\n") + "\n\n"
}

func TestPluginAnswersAndLogsEachPartsRoute(t *testing.T) {
	dir := t.TempDir()
	var out strings.Builder
	if err := Serve(strings.NewReader(conversation(dir)), &out); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(out.String()))
	var replies []map[string]json.RawMessage
	for dec.More() {
		var m map[string]json.RawMessage
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("reply not JSON: %v in %q", err, out.String())
		}
		replies = append(replies, m)
	}
	if len(replies) != 3 {
		t.Fatalf("%d replies, want getmanifest's, init's and an error for hello: %s", len(replies), out.String())
	}
	if string(replies[0]["id"]) != `"cln:getmanifest#1"` || !strings.Contains(string(replies[0]["result"]), `"subscriptions":["pay_part_start"]`) {
		t.Errorf("getmanifest reply %s", replies[0])
	}
	if string(replies[1]["id"]) != `"cln:init#2"` || string(replies[1]["result"]) != "{}" {
		t.Errorf("init reply %s", replies[1])
	}
	if string(replies[2]["id"]) != "7" || replies[2]["error"] == nil {
		t.Errorf("an unknown method's reply %s", replies[2])
	}

	l := Open(filepath.Join(dir, FileName))
	defer l.Close()
	if n, ok := l.Hops("ab01", 0); !ok || n != 3 {
		t.Errorf("multi-part payment: %d hops (%v), want its longest part's 3", n, ok)
	}
	if n, ok := l.Hops("CD02", 0); !ok || n != 1 {
		t.Errorf("one-part payment: %d hops (%v), want 1", n, ok)
	}
	if _, ok := l.Hops("ee03", 0); ok {
		t.Error("a payment the plugin never saw has hops")
	}
}

// The harness may read while the plugin is mid-line: a line counts once it
// is whole.
func TestLogReadsWholeLinesOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	l := Open(path)
	defer l.Close()
	if _, ok := l.Hops("aa", 0); ok {
		t.Fatal("hops before the file exists")
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("aa 1 1 ")
	if _, ok := l.Hops("aa", 0); ok {
		t.Fatal("a half-written line was read")
	}
	f.WriteString("4\nbb 1 1 2\n")
	if n, ok := l.Hops("aa", 0); !ok || n != 4 {
		t.Fatalf("aa: %d %v, want 4", n, ok)
	}
	if n, ok := l.Hops("bb", 0); !ok || n != 2 {
		t.Fatalf("bb: %d %v, want 2", n, ok)
	}
}
