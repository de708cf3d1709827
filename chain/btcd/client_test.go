package btcd

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeRPC is a btcd JSON-RPC endpoint over TLS that answers getblockcount
// with 7 once release is closed; arrived gets a value when a request is in.
func fakeRPC(t *testing.T, release <-chan struct{}) (c *Client, arrived <-chan struct{}) {
	t.Helper()
	in := make(chan struct{}, 1)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Method != "getblockcount" {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		select {
		case in <- struct{}{}:
		default:
		}
		<-release
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"result":7,"error":null,"id":` + string(req.ID) + `}`))
	}))
	t.Cleanup(srv.Close)
	certPath := filepath.Join(t.TempDir(), "rpc.cert")
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(certPath, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Dial(strings.TrimPrefix(srv.URL, "https://"), certPath, "u", "p")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, in
}

func TestClientAnswers(t *testing.T) {
	release := make(chan struct{})
	close(release)
	c, _ := fakeRPC(t, release)
	h, err := c.Height(context.Background())
	if err != nil || h != 7 {
		t.Fatalf("height %d, err %v", h, err)
	}
}

func TestClientReturnsWhenContextEnds(t *testing.T) {
	release := make(chan struct{})
	defer close(release) // let the abandoned request finish before the server closes
	c, arrived := fakeRPC(t, release)
	ctx, cancel := context.WithCancel(context.Background())
	// The server holds the request until release, which comes only after
	// the test: cancelling once the request is in flight is the only way
	// out, so a method that ignores ctx hangs the test (go test -timeout).
	go func() {
		<-arrived
		cancel()
	}()
	if _, err := c.Height(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if _, err := c.MempoolSize(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled from an already cancelled ctx", err)
	}
}
