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

// A database URL keeps its user, host and database, not its password.
func TestRedactHidesDatabasePasswords(t *testing.T) {
	args := []string{"--db.postgres.dsn=postgres://lnbench:s3cr3t@127.0.0.1:5432/alice?sslmode=disable", "--wallet=postgresql://lnbench:x%40y@127.0.0.1:5432/bob"}
	got := strings.Join(redact(args, ""), " ")
	want := "--db.postgres.dsn=postgres://lnbench:<redacted>@127.0.0.1:5432/alice?sslmode=disable --wallet=postgresql://lnbench:<redacted>@127.0.0.1:5432/bob"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
