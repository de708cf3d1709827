package btcd

import (
	"fmt"
	"os"
	"time"

	"github.com/lightningnetwork/lnd/cert"

	"github.com/lnbench/lnbench/internal/fileutil"
)

// WriteRPCCert makes btcd's RPC certificate and key at certPath and keyPath
// for the loopback addresses, localhost and domains, unless both are there
// already (a restored chain's or a restarted one's): ECDSA P-256, where
// btcd's own is P-521. Every client verifies the server's signature once a
// connection, and Core Lightning's bitcoin-cli opens one a call: the P-521
// verify was half of the shim's CPU, 102 ms a call against 26 ms with
// P-256 (perf stat on a busy 2-core machine, docs/cln.md).
func WriteRPCCert(certPath, keyPath string, domains ...string) error {
	if fileutil.NonEmpty(certPath) && fileutil.NonEmpty(keyPath) {
		return nil
	}
	// No autofill: the host's names and addresses are not the chain's.
	certPEM, keyPEM, err := cert.GenCertPair("lnbench btcd", nil, domains, true, 30*24*time.Hour)
	if err != nil {
		return fmt.Errorf("btcd RPC certificate: %v", err)
	}
	if err := os.WriteFile(keyPath, keyPEM, 0o600); err != nil {
		return err
	}
	return os.WriteFile(certPath, certPEM, 0o644)
}
