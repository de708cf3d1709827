package btcd

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWriteRPCCert(t *testing.T) {
	dir := t.TempDir()
	certPath, keyPath := filepath.Join(dir, "rpc.cert"), filepath.Join(dir, "rpc.key")
	if err := WriteRPCCert(certPath, keyPath, "chain"); err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if pub, ok := c.PublicKey.(*ecdsa.PublicKey); !ok || pub.Curve != elliptic.P256() {
		t.Errorf("key %T, want ECDSA P-256", c.PublicKey)
	}
	for _, host := range []string{"chain", "localhost", "127.0.0.1"} {
		if err := c.VerifyHostname(host); err != nil {
			t.Errorf("%s: %v", host, err)
		}
	}
	if h, _ := os.Hostname(); h != "localhost" && slices.Contains(c.DNSNames, h) {
		t.Errorf("the harness host's name %q is in the chain's certificate", h)
	}
	if fi, err := os.Stat(keyPath); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v %v, want mode 0600", fi.Mode(), err)
	}
	// A certificate already there (a restored chain's) is kept.
	before, _ := os.ReadFile(certPath)
	if err := WriteRPCCert(certPath, keyPath, "chain"); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(certPath); string(after) != string(before) {
		t.Error("the certificate was made again over one that was there")
	}
}
