package lnd

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lightningnetwork/lnd/lnrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"
)

// stateServer plays LND's state service: it streams states, holds the
// last one until released, and can refuse the stream altogether.
type stateServer struct {
	lnrpc.UnimplementedStateServer
	states     []lnrpc.WalletState // streamed at once
	sent       chan struct{}       // closed once they are sent
	release    chan struct{}       // then SERVER_ACTIVE follows
	noStream   bool                // SubscribeState is unimplemented
	breakAfter bool                // the stream breaks after the states
	getState   lnrpc.WalletState
	asked      chan struct{} // closed at the first GetState
	sentOnce   sync.Once
	askedOnce  sync.Once
}

func (s *stateServer) SubscribeState(_ *lnrpc.SubscribeStateRequest, stream lnrpc.State_SubscribeStateServer) error {
	if s.noStream {
		return status.Error(codes.Unimplemented, "no state stream")
	}
	for _, st := range s.states {
		if err := stream.Send(&lnrpc.SubscribeStateResponse{State: st}); err != nil {
			return err
		}
	}
	s.sentOnce.Do(func() { close(s.sent) })
	if s.breakAfter {
		return status.Error(codes.Unavailable, "restarting")
	}
	select {
	case <-s.release:
	case <-stream.Context().Done():
		return stream.Context().Err()
	}
	return stream.Send(&lnrpc.SubscribeStateResponse{State: lnrpc.WalletState_SERVER_ACTIVE})
}

func (s *stateServer) GetState(context.Context, *lnrpc.GetStateRequest) (*lnrpc.GetStateResponse, error) {
	s.askedOnce.Do(func() { close(s.asked) })
	return &lnrpc.GetStateResponse{State: s.getState}, nil
}

// serve starts a TLS gRPC server for localhost and dials it as the harness does.
func serve(t *testing.T, s *stateServer) *Driver {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "lnd"},
		DNSNames: []string{"localhost"}, NotBefore: time.Unix(0, 0), NotAfter: time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certPath, macPath := filepath.Join(dir, "tls.cert"), filepath.Join(dir, "admin.macaroon")
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(macPath, []byte{1, 2, 3}, 0o600); err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.Creds(credentials.NewServerTLSFromCert(&tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key})))
	lnrpc.RegisterStateServer(srv, s)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	d, err := Dial("alice", lis.Addr().String(), certPath, macPath, "localhost")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func newStateServer(states ...lnrpc.WalletState) *stateServer {
	return &stateServer{states: states, sent: make(chan struct{}), release: make(chan struct{}), asked: make(chan struct{}), getState: lnrpc.WalletState_RPC_ACTIVE}
}

func TestWaitReadyWaitsForServerActive(t *testing.T) {
	s := newStateServer(lnrpc.WalletState_UNLOCKED, lnrpc.WalletState_RPC_ACTIVE)
	d := serve(t, s)
	done := make(chan error, 1)
	go func() { done <- d.WaitReady(context.Background()) }()
	<-s.sent
	select {
	case err := <-done:
		t.Fatalf("WaitReady returned (%v) while the server was only RPC_ACTIVE", err)
	default:
	}
	close(s.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestWaitReadyAsksGetStateWithoutAStream(t *testing.T) {
	s := newStateServer()
	s.noStream, s.getState = true, lnrpc.WalletState_SERVER_ACTIVE
	if err := serve(t, s).WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A broken stream is retried; the error at the end names the last state.
func TestWaitReadyNamesTheLastStateWhenCancelled(t *testing.T) {
	s := newStateServer(lnrpc.WalletState_RPC_ACTIVE)
	s.breakAfter = true
	d := serve(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.WaitReady(ctx) }()
	<-s.asked // the client read the stream to its break, then asked GetState
	cancel()
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "alice: server not active (last state RPC_ACTIVE") {
		t.Fatalf("error %v", err)
	}
}
