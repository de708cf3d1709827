package runner

import (
	"strings"
	"testing"
)

// Every implementation's RPC password flag is redacted in args.txt.
func TestRedactHidesEveryRPCPassword(t *testing.T) {
	args := []string{"--rpcpass=s1", "--btcd.rpcpass=s2", "--bitcoin-rpcpassword=s3", "--rpcuser=lnbench", "--alias=bob"}
	got := strings.Join(redact(args, "/work"), " ")
	if strings.Contains(got, "s1") || strings.Contains(got, "s2") || strings.Contains(got, "s3") {
		t.Errorf("a password is left: %s", got)
	}
	if !strings.Contains(got, "--bitcoin-rpcpassword=<redacted>") || !strings.Contains(got, "--alias=bob") {
		t.Errorf("redacted too much or too little: %s", got)
	}
}
