package composefile

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/dbserver/postgres"
	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/topology"
)

// specFor is a Spec with fixed inputs for a topology.
func specFor(t *testing.T, topo topology.Topology) Spec {
	t.Helper()
	frags, err := LoadFragments(nil)
	if err != nil {
		t.Fatal(err)
	}
	s := Spec{
		RunID:      "20260101T120000Z-" + topo.Name,
		WorkDir:    "/tmp/lnbench/run/launch1",
		User:       "1000:1000",
		ChainImage: "lnbench/lnd:v0.21.0-beta-0123456789ab",
		Chain:      backend.ChainSpec{MiningAddr: "SbVV7nk4rNNQ5E5WJkd2v6n4dQSXbmzsvd", RPCUser: "lnbench", RPCPass: "0011223344556677"},
		Fragments:  frags,
	}
	for _, n := range topo.Nodes {
		s.Nodes = append(s.Nodes, Node{Name: n.Name, Image: s.ChainImage})
	}
	return s
}

func TestGolden(t *testing.T) {
	cases := []struct {
		file string
		spec func(t *testing.T) Spec
	}{
		{"alice-pays-bob.yml", func(t *testing.T) Spec { return specFor(t, topology.AlicePaysBob()) }},
		{"alice-carol1-bob.yml", func(t *testing.T) Spec { return specFor(t, topology.AlicePaysBobViaCarol(1)) }},
		{"alices-pay-bob.yml", func(t *testing.T) Spec { return specFor(t, topology.AlicesPayBob(2)) }},
		{"alice-pays-bob-limits.yml", func(t *testing.T) Spec {
			s := specFor(t, topology.AlicePaysBob())
			s.DefaultLimits = Limits{CPUs: 0.5, Memory: "512m"}
			s.Limits = map[string]Limits{"bob": {CPUs: 1.5, Memory: "1g"}, "btcd": {CPUs: 1}}
			return s
		}},
		{"alices-pay-bob-limits-network.yml", func(t *testing.T) Spec {
			s := specFor(t, topology.AlicesPayBob(2))
			s.Network = "launch2/AliceCount=2"
			s.Project = ProjectName(s.RunID, s.Network)
			s.DefaultLimits = Limits{CPUs: 1, Memory: "768m"}
			s.Nodes[0].DBBackend = "sqlite"
			s.Nodes[0].ExtraArgs = []string{"--debuglevel=debug"}
			s.Nodes[0].Env = []string{"GOGC=50"} // a footprint
			return s
		}},
		// A mixed network on regtest: carol is CLN (its fragment, the RPC
		// bridge's port, lightningd's flags, the lnbench binary as
		// bitcoin-cli), alice and bob are LND on regtest.
		{"alice-clncarol-bob-regtest.yml", func(t *testing.T) Spec {
			s := specFor(t, topology.AlicePaysBobViaCarol(1))
			s.Chain.Network = "regtest"
			s.Nodes[1].Implementation, s.Nodes[1].Image = "cln", "lnbench/cln:v26.06.6-0123456789ab"
			s.Tool = "/opt/lnbench/bin/lnbench"
			s.PerfSeccomp = "/opt/lnbench/BenchmarkArtifacts/run/" + PerfSeccompFile
			return s
		}},
		{"alice-pays-bob-pprof-sampler.yml", func(t *testing.T) Spec {
			s := specFor(t, topology.AlicePaysBob())
			s.Pprof, s.Sampler = true, true
			s.Tool, s.Artifacts = "/opt/lnbench/bin/lnbench", "/opt/lnbench/BenchmarkArtifacts/run"
			s.SamplerArgs = []string{"--mode", "iteration", "--slice", "1s", "--origin", "2026-11-22T04:00:00Z"}
			return s
		}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got, err := Generate(c.spec(t))
			if err != nil {
				t.Fatal(err)
			}
			testsupport.Golden(t, filepath.Join("testdata", c.file), got)
		})
	}
}

func TestDeterministic(t *testing.T) {
	s := specFor(t, topology.AlicesPayBob(5))
	s.Limits = map[string]Limits{"alice3": {CPUs: 0.25, Memory: "256m"}, "bob": {CPUs: 2}}
	first, err := Generate(s)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		// Same inputs, fresh fragments and reversed node order: same bytes
		// except node order, which the services map sorts anyway.
		s2 := specFor(t, topology.AlicesPayBob(5))
		s2.Limits = map[string]Limits{"bob": {CPUs: 2}, "alice3": {CPUs: 0.25, Memory: "256m"}}
		for l, r := 0, len(s2.Nodes)-1; l < r; l, r = l+1, r-1 {
			s2.Nodes[l], s2.Nodes[r] = s2.Nodes[r], s2.Nodes[l]
		}
		again, err := Generate(s2)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, again) {
			t.Fatalf("same inputs gave different bytes:\n%s", testsupport.Diff(string(first), string(again)))
		}
	}
}

// TestGeneratedInvariants checks the properties the backend relies on, on
// the parsed YAML rather than the text.
func TestGeneratedInvariants(t *testing.T) {
	s := specFor(t, topology.AlicePaysBobViaCarol(2))
	s.Pprof = true
	data, err := Generate(s)
	if err != nil {
		t.Fatal(err)
	}
	var f File
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if got := len(f.Services); got != 5 {
		t.Fatalf("want btcd + 4 nodes, got %d services", got)
	}
	if f.Networks[NetworkName].Labels[backend.Label] != s.RunID {
		t.Errorf("network lacks the run label: %v", f.Networks)
	}
	for name, svc := range f.Services {
		if svc.Labels[backend.Label] != s.RunID {
			t.Errorf("%s lacks the run label: %v", name, svc.Labels)
		}
		if svc.User != "1000:1000" || svc.Environment["HOME"] != "/data" {
			t.Errorf("%s: user %q HOME %q", name, svc.User, svc.Environment["HOME"])
		}
		if svc.Hostname != name {
			t.Errorf("%s: hostname %q", name, svc.Hostname)
		}
		for _, p := range svc.Ports {
			if !strings.HasPrefix(p.Short, "127.0.0.1::") {
				t.Errorf("%s publishes %q beyond loopback", name, p.Short)
			}
		}
		if svc.Volumes[0].Source != filepath.Join(s.WorkDir, name) || svc.Volumes[0].Target != "/data" {
			t.Errorf("%s: data mount %+v", name, svc.Volumes[0])
		}
		cmd := strings.Join(svc.Command, " ")
		if name == ChainService {
			if !strings.Contains(cmd, "--miningaddr="+s.Chain.MiningAddr) {
				t.Errorf("btcd's mining address is not pinned: %s", cmd)
			}
			continue
		}
		for _, want := range []string{"--tlsextradomain=" + name, "--tlsextradomain=localhost", "--btcd.rpchost=btcd:18556",
			"--btcd.rpccert=/btcd/rpc.cert", "--pprof.profile=0.0.0.0:6060", "--lnddir=/data"} {
			if !strings.Contains(cmd, want) {
				t.Errorf("%s: command lacks %s: %s", name, want, cmd)
			}
		}
		if len(svc.Ports) != 1 || svc.Ports[0].Short != "127.0.0.1::10009" {
			t.Errorf("%s: only gRPC may be published (pprof stays inside), got %v", name, svc.Ports)
		}
	}
	if !bytes.Contains(data, []byte(`user: "1000:1000"`)) {
		t.Error("user must be quoted for YAML 1.1 readers (docker-compose v1)")
	}
}

func TestProjectAndFileNames(t *testing.T) {
	if got := ProjectName("20260101T120000Z-AlicePaysBob", ""); got != "lnbench-20260101t120000z-alicepaysbob" {
		t.Errorf("project %q", got)
	}
	if got := ProjectName("Run.ID", "launch1/AliceCount=2"); got != "lnbench-run-id-launch1-alicecount-2" {
		t.Errorf("project %q", got)
	}
	if got := FileName(""); got != "docker-compose.yml" {
		t.Errorf("file %q", got)
	}
	if got := FileName("launch1/CarolsCount=2"); got != "docker-compose.launch1_carolscount_2.yml" {
		t.Errorf("file %q", got)
	}
}

func TestSpecErrors(t *testing.T) {
	base := func() Spec { return specFor(t, topology.AlicePaysBob()) }
	cases := map[string]func(*Spec){
		"run id is empty":          func(s *Spec) { s.RunID = "" },
		"must be absolute":         func(s *Spec) { s.WorkDir = "rel" },
		"want uid:gid":             func(s *Spec) { s.User = "root" },
		"is reserved":              func(s *Spec) { s.Nodes[0].Name = "btcd" },
		"reserved for the harness": func(s *Spec) { s.Nodes[0].Name = SamplerService },
		"use 1-31 lowercase":       func(s *Spec) { s.Nodes[0].Name = "Alice" },
		"minimum of 6 MiB":         func(s *Spec) { s.Limits = map[string]Limits{"bob": {Memory: "4m"}} },
		"twice":                    func(s *Spec) { s.Nodes[1].Name = s.Nodes[0].Name },
		"has no image":             func(s *Spec) { s.Nodes[0].Image = "" },
		"which is not a service":   func(s *Spec) { s.Limits = map[string]Limits{"zed": {CPUs: 1}} },
		"use bytes with":           func(s *Spec) { s.DefaultLimits = Limits{Memory: "lots"} },
		"needs the nodes' pprof":   func(s *Spec) { s.Sampler = true },
		"fragment actor-lnd.yml":   func(s *Spec) { delete(s.Fragments, RoleLND) },
		"Tool (a static lnbench)":  func(s *Spec) { s.Nodes[0].Implementation = "cln" },
		"must publish lnd's gRPC":  func(s *Spec) { f := s.Fragments[RoleLND]; f.Published = nil; s.Fragments[RoleLND] = f },
		"lightningd's RPC bridge":  func(s *Spec) { f := s.Fragments[RoleCLN]; f.Published = nil; s.Fragments[RoleCLN] = f },
	}
	for want, mut := range cases {
		s := base()
		s.Fragments = cloneFragments(s.Fragments)
		mut(&s)
		if _, err := Generate(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want an error with %q, got %v", want, err)
		}
	}
}

func cloneFragments(f Fragments) Fragments {
	out := Fragments{}
	for k, v := range f {
		out[k] = v
	}
	return out
}

// The generator's service names are exactly the names topology reserves:
// a node named like a service would collide with it in the compose file.
func TestServiceNamesAreReservedNodeNames(t *testing.T) {
	for _, svc := range []string{ChainService, SamplerService, postgres.Actor} {
		if err := topology.ValidateName(svc); err == nil || !strings.Contains(err.Error(), "reserved") {
			t.Errorf("service %q is not a reserved node name: %v", svc, err)
		}
	}
}

// Memory is read as Docker reads it and written in the form both compose
// tools accept, so "512M" (accepted by the scenario) works here too.
func TestMemoryLimitIsNormalised(t *testing.T) {
	s := specFor(t, topology.AlicePaysBob())
	s.DefaultLimits = Limits{Memory: "512M"}
	s.Limits = map[string]Limits{"bob": {Memory: "1.5GiB"}}
	f, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Services["alice"].MemLimit; got != "512m" {
		t.Errorf("alice mem_limit %q, want 512m", got)
	}
	if got := f.Services["bob"].MemLimit; got != "1536m" {
		t.Errorf("bob mem_limit %q, want 1536m", got)
	}
	if got := f.Services[ChainService].MemLimit; got != "" {
		t.Errorf("btcd mem_limit %q, want none", got)
	}
}

// db=postgres nodes get the network's PostgreSQL service: their databases
// listed for its entrypoint, their connection strings with the password
// left to compose's environment, and a dependency on it; the file holds no
// password.
func TestPostgresService(t *testing.T) {
	s := specFor(t, topology.AlicePaysBob())
	s.Tool = "/usr/local/bin/lnbench"
	s.Nodes[0].DBBackend = "postgres"
	s.Nodes[1].DBBackend, s.Nodes[1].Implementation = "postgres", "cln"
	if _, err := Generate(s); err == nil || !strings.Contains(err.Error(), "no PostgreSQL image") {
		t.Fatalf("without an image: %v", err)
	}
	s.PostgresImage = "lnbench/postgres:0123"
	data, err := Generate(s)
	if err != nil {
		t.Fatal(err)
	}
	var f File
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	db, ok := f.Services[postgres.Actor]
	if !ok || db.Image != s.PostgresImage || db.Environment["LNBENCH_PGDATABASES"] != "alice bob" || db.Labels[backend.Label] != s.RunID || len(db.Ports) != 0 {
		t.Fatalf("postgres service: %+v", db)
	}
	alice, bob := strings.Join(f.Services["alice"].Command, " "), strings.Join(f.Services["bob"].Command, " ")
	if !strings.Contains(alice, "--db.backend=postgres --db.postgres.dsn=postgres://lnbench:${LNBENCH_PGPASS:-lnbench}@postgres:5432/alice?sslmode=disable") {
		t.Errorf("alice: %s", alice)
	}
	if !strings.Contains(bob, "--wallet=postgres://lnbench:${LNBENCH_PGPASS:-lnbench}@postgres:5432/bob?sslmode=disable") {
		t.Errorf("bob: %s", bob)
	}
	if _, ok := f.Services["bob"].DependsOn[postgres.Actor]; !ok {
		t.Errorf("bob does not depend on the database: %v", f.Services["bob"].DependsOn)
	}
	plain := specFor(t, topology.AlicePaysBob())
	data, _ = Generate(plain)
	if bytes.Contains(data, []byte("postgres")) {
		t.Error("a network without db=postgres nodes has a database service")
	}
}
