package cln

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// RPCError is lightningd's JSON-RPC error reply.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// Client speaks JSON-RPC 2.0 to lightningd over its unix socket, or over a
// TCP bridge of it (a container's socat, published on 127.0.0.1). One
// request at a time per connection, connections pooled: lightningd answers
// a connection's requests in any order, and a pool keeps the reader simple.
// Hand-written: no maintained Go client for CLN's RPC is on the module
// proxy, and the protocol is a few lines of JSON.
type Client struct {
	network, addr string
	cleanup       func()
	idle          chan net.Conn
	id            atomic.Int64
	closeOnce     sync.Once
}

// maxUnixPath is what fits in sockaddr_un (108 bytes with the NUL).
const maxUnixPath = 100

// NewClient makes a client for rpcHost: "unix:/path/to/lightning-rpc" or
// "host:port". A socket path too long for sockaddr_un is reached through a
// short symlink to its folder, removed by Close.
func NewClient(rpcHost string) (*Client, error) {
	c := &Client{network: "tcp", addr: rpcHost, cleanup: func() {}, idle: make(chan net.Conn, 256)}
	if path, ok := strings.CutPrefix(rpcHost, "unix:"); ok {
		c.network, c.addr = "unix", path
		if len(path) > maxUnixPath {
			dir, err := os.MkdirTemp("", "lnb")
			if err != nil {
				return nil, err
			}
			link := filepath.Join(dir, "d")
			if err := os.Symlink(filepath.Dir(path), link); err != nil {
				os.RemoveAll(dir)
				return nil, err
			}
			c.addr, c.cleanup = filepath.Join(link, filepath.Base(path)), func() { os.RemoveAll(dir) }
		}
	}
	return c, nil
}

// Close closes idle connections and removes the socket symlink.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		for {
			select {
			case conn := <-c.idle:
				conn.Close()
			default:
				c.cleanup()
				return
			}
		}
	})
	return nil
}

func (c *Client) conn(ctx context.Context) (net.Conn, error) {
	select {
	case conn := <-c.idle:
		return conn, nil
	default:
	}
	var d net.Dialer
	return d.DialContext(ctx, c.network, c.addr)
}

func (c *Client) release(conn net.Conn) {
	select {
	case c.idle <- conn:
	default:
		conn.Close()
	}
}

// Call sends method with named params and decodes the result into out
// (nil discards it). An error reply is an *RPCError.
func (c *Client) Call(ctx context.Context, method string, params map[string]any, out any) error {
	if params == nil {
		params = map[string]any{}
	}
	conn, err := c.conn(ctx)
	if err != nil {
		return err
	}
	id := c.id.Add(1)
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	var resp struct {
		ID     int64           `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	_, err = conn.Write(req)
	if err == nil {
		err = json.NewDecoder(conn).Decode(&resp)
	}
	if !stop() || err != nil {
		conn.Close()
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return err
	}
	if resp.ID != id {
		conn.Close()
		return fmt.Errorf("%s: answer for request %d, want %d", method, resp.ID, id)
	}
	c.release(conn)
	if resp.Error != nil {
		return resp.Error
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(resp.Result, out)
}

// Answers tells whether a lightningd serves getinfo at rpcHost ("unix:PATH"
// or host:port) within 2 s: its socket file, or a bridge's port, being
// there is not enough (a killed lightningd leaves its socket behind).
func Answers(ctx context.Context, rpcHost string) bool {
	c, err := NewClient(rpcHost)
	if err != nil {
		return false
	}
	defer c.Close()
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return c.Call(cctx, "getinfo", nil, nil) == nil
}
