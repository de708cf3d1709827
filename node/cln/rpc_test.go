package cln

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// serve answers JSON-RPC requests on a unix socket: getinfo succeeds,
// anything else is an error reply.
func serve(t *testing.T, path string) {
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				dec := json.NewDecoder(c)
				for {
					var req struct {
						ID     int64  `json:"id"`
						Method string `json:"method"`
					}
					if dec.Decode(&req) != nil {
						return
					}
					var resp map[string]any
					if req.Method == "getinfo" {
						resp = map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{"id": "02ab", "blockheight": 450}}
					} else {
						resp = map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "Unknown command"}}
					}
					b, _ := json.Marshal(resp)
					c.Write(append(b, '\n', '\n'))
				}
			}()
		}
	}()
}

func TestClientOverALongSocketPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), strings.Repeat("x", 60), strings.Repeat("y", 40))
	if err := mkdir(dir); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "lightning-rpc")
	// Too long for sockaddr_un: the server listens through a short path too.
	short := filepath.Join(t.TempDir(), "s")
	serve(t, short)
	if err := symlink(short, sock); err != nil {
		t.Fatal(err)
	}
	c, err := NewClient("unix:" + sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	for i := 0; i < 3; i++ { // the pooled connection is reused
		var gi getinfo
		if err := c.Call(ctx, "getinfo", nil, &gi); err != nil || gi.ID != "02ab" || gi.BlockHeight != 450 {
			t.Fatalf("getinfo: %+v %v", gi, err)
		}
	}
	err = c.Call(ctx, "nosuch", nil, nil)
	if rpcCode(err) != -32601 {
		t.Fatalf("error reply: %v", err)
	}
}

func mkdir(dir string) error            { return os.MkdirAll(dir, 0o700) }
func symlink(target, link string) error { return os.Symlink(target, link) }
