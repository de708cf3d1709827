package lnd

import (
	"slices"
	"strings"
	"testing"
)

func TestArgs(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		want     []string // must appear
		wantNot  []string // must not appear
		wantLast string
	}{
		{
			name: "local node",
			cfg: Config{Alias: "alice", LndDir: "/run/alice", RPCListen: "127.0.0.1:10009", P2PListen: "127.0.0.1:9735",
				TLSExtraDomains: []string{"alice"}, BtcdRPCHost: "127.0.0.1:18556", BtcdRPCUser: "u", BtcdRPCPass: "p", BtcdRPCCert: "/c", DBBackend: "bbolt"},
			want:    []string{"--bitcoin.simnet", "--alias=alice", "--lnddir=/run/alice", "--rpclisten=127.0.0.1:10009", "--norest", "--listen=127.0.0.1:9735", "--tlsextradomain=alice", "--btcd.rpchost=127.0.0.1:18556", "--db.backend=bolt"},
			wantNot: []string{"--pprof.profile=", "--restlisten="},
		},
		{
			name:     "rest, pprof, sqlite, extra flags last",
			cfg:      Config{RESTListen: "0.0.0.0:8080", PprofListen: "0.0.0.0:6060", DBBackend: "sqlite", Extra: []string{"--debuglevel=warn"}},
			want:     []string{"--restlisten=0.0.0.0:8080", "--pprof.profile=0.0.0.0:6060", "--db.backend=sqlite"},
			wantNot:  []string{"--norest", "--alias="},
			wantLast: "--debuglevel=warn",
		},
		{
			name: "postgres",
			cfg:  Config{DBBackend: "postgres", PostgresDSN: "postgres://u:p@127.0.0.1:5432/alice?sslmode=disable"},
			want: []string{"--db.backend=postgres", "--db.postgres.dsn=postgres://u:p@127.0.0.1:5432/alice?sslmode=disable"},
		},
		{
			name:    "no dsn off postgres",
			cfg:     Config{DBBackend: "sqlite"},
			wantNot: []string{"--db.postgres"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.cfg.Args()
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("missing %s in %v", w, got)
				}
			}
			for _, w := range tt.wantNot {
				for _, g := range got {
					if len(g) >= len(w) && g[:len(w)] == w {
						t.Errorf("unexpected %s in %v", g, got)
					}
				}
			}
			if tt.wantLast != "" && got[len(got)-1] != tt.wantLast {
				t.Errorf("last arg %q, want %q", got[len(got)-1], tt.wantLast)
			}
		})
	}
}

func TestArgsDeterministic(t *testing.T) {
	a := Config{TLSExtraDomains: []string{"b", "a", "c"}}.Args()
	b := Config{TLSExtraDomains: []string{"c", "b", "a"}}.Args()
	if !slices.Equal(a, b) {
		t.Fatalf("domain order changed the args:\n%v\n%v", a, b)
	}
}

func TestProfile(t *testing.T) {
	p, err := Profile("tuned", "bbolt", "v0.21.0-beta")
	if err != nil || p.DBBackend != "bbolt" || !slices.Contains(p.Flags, "--db.batch-commit-interval=10ms") {
		t.Fatalf("tuned+bbolt: %+v %v", p, err)
	}
	p, err = Profile("bottlepay", "sqlite-native", "v0.20.2-beta")
	if err != nil || p.DBBackend != "sqlite" || !slices.Equal(p.Flags, []string{"--channel-commit-interval=100ms", "--channel-commit-batch-size=300", "--db.use-native-sql"}) {
		t.Fatalf("bottlepay+sqlite-native: %+v %v", p, err)
	}
	if p, err = Profile("default", "sqlite", "src"); err != nil || len(p.Flags) != 0 {
		t.Fatalf("default: %+v %v", p, err)
	}
	if _, err := Profile("default", "sqlite-native", "v0.17.5-beta"); err == nil {
		t.Fatal("native SQL accepted on a release without it")
	}
	if p, err := Profile("default", "postgres", "v0.21.0-beta"); err != nil || p.DBBackend != "postgres" {
		t.Fatalf("postgres: %+v %v", p, err)
	}
	if p, err := Profile("default", "postgres-native", "v0.21.0-beta"); err != nil || p.DBBackend != "postgres" || !slices.Equal(p.Flags, []string{"--db.use-native-sql"}) {
		t.Fatalf("postgres-native: %+v %v", p, err)
	}
	if _, err := Profile("default", "postgres-native", "v0.17.5-beta"); err == nil || !strings.Contains(err.Error(), "use db=postgres") {
		t.Fatalf("postgres-native on a release without native SQL: %v", err)
	}
	if _, err := Profile("fast", "bbolt", "v0.21.0-beta"); err == nil {
		t.Fatal("unknown profile accepted")
	}
	if slices.Contains(Config{}.Args(), "--db.batch-commit-interval=10ms") {
		t.Fatal("a speed flag is outside the profiles")
	}
}
