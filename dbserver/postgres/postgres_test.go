package postgres

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestArgs(t *testing.T) {
	c := Config{DataDir: "/pg/data", SocketDir: "/pg", Listen: "127.0.0.1", Port: 5433, MaxConnections: 300}
	if got := strings.Join(c.Args(), " "); got != "-D /pg/data -k /pg -h 127.0.0.1 -p 5433 -c max_connections=300 -c logging_collector=off" {
		t.Errorf("args: %s", got)
	}
	if got := c.InitdbArgs("/pg/pw"); !slices.Contains(got, "--pwfile=/pg/pw") || !slices.Contains(got, "--auth=scram-sha-256") || !slices.Contains(got, Superuser) {
		t.Errorf("initdb args: %v", got)
	}
	if got := (Config{}).Args(); !slices.Contains(got, "max_connections=100") {
		t.Errorf("default sessions: %v", got)
	}
}

func TestDSN(t *testing.T) {
	// A password with URL characters stays one password.
	got := DSN("p@ss/w:rd", "127.0.0.1", 5433, "carol-1")
	if got != "postgres://lnbench:p%40ss%2Fw%3Ard@127.0.0.1:5433/carol-1?sslmode=disable" {
		t.Errorf("dsn: %s", got)
	}
}

func TestBinDirTakesTheNewest(t *testing.T) {
	root := t.TempDir()
	for _, v := range []string{"9", "15", "13"} {
		bin := filepath.Join(root, v, "bin")
		os.MkdirAll(bin, 0o755)
		for _, p := range []string{"postgres", "initdb"} {
			os.WriteFile(filepath.Join(bin, p), nil, 0o755)
		}
	}
	os.MkdirAll(filepath.Join(root, "16", "bin"), 0o755) // the client only
	if d, err := BinDir(root); err != nil || d != filepath.Join(root, "15", "bin") {
		t.Errorf("BinDir: %s %v", d, err)
	}
	if _, err := BinDir(t.TempDir()); err == nil || !strings.Contains(err.Error(), Install) {
		t.Errorf("no server: %v", err)
	}
}

func TestNewPassword(t *testing.T) {
	a, b := NewPassword(), NewPassword()
	if len(a) != 32 || a == b || strings.Trim(a, "0123456789abcdef") != "" {
		t.Errorf("passwords %q %q", a, b)
	}
}
