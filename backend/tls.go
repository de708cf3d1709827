package backend

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"time"
)

// TLSAnswers completes a TLS handshake with the server at hostPort,
// verifying its certificate (from certPath) for serverName. A published
// port accepts connections before the service listens (Docker's proxy, a
// swarm's host-mode port), so an open port proves nothing; a handshake does.
func TLSAnswers(hostPort, certPath, serverName string) bool {
	pem, err := os.ReadFile(certPath)
	if err != nil {
		return false
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return false
	}
	d := &net.Dialer{Timeout: time.Second}
	c, err := tls.DialWithDialer(d, "tcp", hostPort, &tls.Config{RootCAs: pool, ServerName: serverName, MinVersion: tls.VersionTLS12})
	if err != nil {
		return false
	}
	c.Close()
	return true
}
