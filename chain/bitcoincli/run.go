package bitcoincli

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// CertFile is the name of btcd's RPC certificate inside -datadir: the
// harness points CLN's --bitcoin-datadir at btcd's own folder (or a copy
// of the certificate), so the shim speaks TLS to btcd as LND does.
const CertFile = "rpc.cert"

// Exit codes bitcoin-cli uses besides an RPC error's |code|.
const (
	exitFailure = 1 // bad arguments, or the server could not be reached
)

// Run is bitcoin-cli's main: it parses args and stdin, calls btcd, prints
// the result on stdout or the error on stderr, and returns the exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	inv, err := Parse(args, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitFailure
	}
	deadline := time.Now().Add(inv.WaitTimeout)
	waiting := func() bool { return inv.RPCWait && (inv.WaitTimeout == 0 || time.Now().Before(deadline)) }
	for {
		out, host, err := call(inv)
		var rpcErr *RPCError
		switch {
		case err == nil:
			if out != "" {
				fmt.Fprintln(stdout, out)
			}
			return 0
		case errors.As(err, &rpcErr):
			fmt.Fprintln(stderr, rpcErr.Error())
			return abs(rpcErr.Code)
		case waiting():
			// bitcoin-cli's -rpcwait retries once a second; btcd's
			// certificate appears only once it has started, too.
			time.Sleep(time.Second)
		default:
			fmt.Fprintf(stderr, "error: Could not connect to the server %s (%v)\n", host, err)
			return exitFailure
		}
	}
}

func call(inv Invocation) (out, host string, err error) {
	c, err := dial(inv)
	if err != nil {
		return "", net.JoinHostPort(inv.RPCConnect, inv.RPCPort), err
	}
	defer c.close()
	out, err = Do(c, inv.Method, inv.Params)
	return out, c.host, err
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// btcdCaller calls btcd over HTTPS POST. Written by hand rather than with
// btcd's rpcclient: rpcclient retries a failed POST ten times over about
// 22 s, while bitcoin-cli fails at once and bcli decides what to retry.
type btcdCaller struct {
	host, user, pass string
	http             *http.Client
}

func dial(inv Invocation) (*btcdCaller, error) {
	host := inv.RPCConnect
	if host == "" {
		host = "127.0.0.1"
	}
	port := inv.RPCPort
	if port == "" {
		port = "18334" // btcd's regtest RPC port
	}
	if inv.DataDir == "" {
		return nil, fmt.Errorf("-datadir is required: the folder with btcd's %s (set CLN's --bitcoin-datadir)", CertFile)
	}
	pem, err := os.ReadFile(filepath.Join(inv.DataDir, CertFile))
	if err != nil {
		return nil, fmt.Errorf("btcd's RPC certificate: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("btcd's RPC certificate %s: no PEM certificate in it", filepath.Join(inv.DataDir, CertFile))
	}
	timeout := inv.Timeout
	if timeout == 0 {
		timeout = 900 * time.Second // bitcoin-cli's default -rpcclienttimeout
	}
	return &btcdCaller{
		host: net.JoinHostPort(host, port), user: inv.RPCUser, pass: inv.RPCPassword,
		http: &http.Client{Timeout: timeout, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}},
	}, nil
}

func (b *btcdCaller) close() { b.http.CloseIdleConnections() }

// Call returns btcd's result, its error reply as *RPCError, or the
// transport error.
func (b *btcdCaller) Call(method string, params []json.RawMessage) (json.RawMessage, error) {
	if params == nil {
		params = []json.RawMessage{}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "1.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(http.MethodPost, "https://"+b.host, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth(b.user, b.pass)
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusUnauthorized {
		return nil, &RPCError{Code: -1, Message: "Authorization failed: Incorrect rpcuser or rpcpassword"}
	}
	var reply struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &reply); err != nil {
		return nil, fmt.Errorf("btcd answered %s: %.200s", resp.Status, data)
	}
	if reply.Error != nil {
		return nil, &RPCError{Code: reply.Error.Code, Message: reply.Error.Message}
	}
	return reply.Result, nil
}
