package topology

import (
	"strings"
	"testing"
)

func TestBuilders(t *testing.T) {
	tests := []struct {
		topo          Topology
		nodes, chans  int
		payers        int
		funderOfFirst string
	}{
		{AlicePaysBob(), 2, 1, 1, "alice"},
		{AlicePaysBobViaCarol(0), 2, 1, 1, "alice"},
		{AlicePaysBobViaCarol(3), 5, 4, 1, "alice"},
		{AlicesPayBob(4), 5, 4, 4, "alice1"},
	}
	for _, tt := range tests {
		if err := tt.topo.Validate(); err != nil {
			t.Errorf("%s: %v", tt.topo.Name, err)
		}
		if len(tt.topo.Nodes) != tt.nodes || len(tt.topo.Channels) != tt.chans || len(tt.topo.Payers) != tt.payers {
			t.Errorf("%s: %d nodes %d channels %d payers", tt.topo.Name, len(tt.topo.Nodes), len(tt.topo.Channels), len(tt.topo.Payers))
		}
		if tt.topo.Channels[0].From != tt.funderOfFirst {
			t.Errorf("%s: first channel from %s", tt.topo.Name, tt.topo.Channels[0].From)
		}
	}
	via := AlicePaysBobViaCarol(2)
	if via.Channels[1].From != "carol1" || via.Channels[1].To != "carol2" || via.Channels[2].To != "bob" {
		t.Errorf("carol chain wrong: %+v", via.Channels)
	}
	if f := via.Funders(); f["carol1"] != DefaultCapacitySat || f["bob"] != 0 {
		t.Errorf("funders %v", f)
	}
}

func TestParseFile(t *testing.T) {
	good := `
name: diamond
nodes:
  - {name: alice}
  - {name: carol}
  - {name: dave, version: v0.21.0-beta}
  - {name: bob}
channels:
  - {from: alice, to: carol, capacity_sat: 5000000}
  - {from: alice, to: dave}
  - {from: carol, to: bob}
  - {from: dave, to: bob, push_sat: 1000}
payers: [alice]
payee: bob
`
	topo, err := Parse([]byte(good), "diamond.yml")
	if err != nil {
		t.Fatal(err)
	}
	if topo.Funders()["alice"] != 5_000_000+DefaultCapacitySat {
		t.Errorf("alice funds %d", topo.Funders()["alice"])
	}
	bad := []struct{ doc, want string }{
		{"nodes: [{name: alice}]\npayers: [alice]\npayee: alice\n", "need at least 2 nodes"},
		{"nodes: [{name: alice}, {name: Bob}]\n", `nodes[1].name "Bob"`},
		{"nodes: [{name: alice}, {name: alice}]\n", "appears twice"},
		{"nodes: [{name: alice}, {name: btcd}]\n", "reserved"},
		{"nodes: [{name: a}, {name: b, implementation: eclair}]\n", `implementation "eclair"`},
		{"nodes: [{name: a}, {name: b}]\nchannels: [{from: a, to: c}]\n", `channels[0].to "c" is not a node`},
		{"nodes: [{name: a}, {name: b}]\nchannels: [{from: a, to: a}]\n", "two different nodes"},
		{"nodes: [{name: a}, {name: b}]\nchannels: [{from: a, to: b, capacity_sat: 100}]\n", "capacity_sat 100"},
		{"nodes: [{name: a}, {name: b}]\nchannels: [{from: a, to: b, push_sat: 20000000}]\n", "push_sat"},
		{"nodes: [{name: a}, {name: b}]\nchannels: [{from: a, to: b}]\n", "payers: list at least one"},
		{"nodes: [{name: a}, {name: b}]\nchannels: [{from: a, to: b}]\npayers: [a]\npayee: z\n", `payee "z"`},
		{"nodes: [{name: a}, {name: b}]\nchannels: [{from: b, to: a}]\npayers: [a]\npayee: b\n", "no channel path"},
		{"nodes: [{name: a}, {name: b}]\nchannels: [{from: a, to: b}]\npayers: [a]\npayee: b\nextra: 1\n", `unknown key "extra"; valid keys here: channels, name, nodes, pairs, payee, payers, traffic`},
		{"nodes: [{name: a, impl: lnd}, {name: b}]\n", `unknown key "impl"; valid keys here: cpus, implementation, memory, name, node, placement, version`},
		{"# nothing yet\n", "t.yml is empty; list nodes"},
	}
	for _, tt := range bad {
		_, err := Parse([]byte(tt.doc), "t.yml")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err %v, want containing %q", tt.doc, err, tt.want)
		}
	}
}

func TestBuild(t *testing.T) {
	if _, err := Build("AlicePaysBobViaCarol", map[string]int{"CarolsCount": 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := Build("Ring", nil); err == nil || !strings.Contains(err.Error(), "use AlicePaysBob") {
		t.Fatalf("unknown topology: %v", err)
	}
	if _, err := Build("AlicesPayBob", map[string]int{"AliceCount": 0}); err == nil {
		t.Fatal("AliceCount=0 accepted")
	}
}

func TestValidateName(t *testing.T) {
	tests := []struct {
		name    string
		wantErr string // "" means valid
	}{
		{"alice", ""},
		{"carol12", ""},
		{"a-b_c", ""},
		{strings.Repeat("a", 31), ""},
		{strings.Repeat("a", 32), "use 1-31 lowercase"},
		{"", "use 1-31 lowercase"},
		{"Alice", "use 1-31 lowercase"},
		{"1alice", "use 1-31 lowercase"},
		{"al ice", "use 1-31 lowercase"},
		{"btcd", "reserved for the harness"},
		{"sampler", "reserved for the harness"},
	}
	for _, tt := range tests {
		err := ValidateName(tt.name)
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("%q: %v", tt.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%q: err %v, want containing %q", tt.name, err, tt.wantErr)
		}
	}
}

func TestIsFile(t *testing.T) {
	for name, want := range map[string]bool{
		"diamond.yml": true, "dir/diamond.yaml": true, "AlicePaysBob": false, "diamond.yml.bak": false, "diamond.json": false,
	} {
		if IsFile(name) != want {
			t.Errorf("IsFile(%q) = %v", name, !want)
		}
	}
}

func TestValidateSource(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{{"AlicePaysBob", true}, {"AlicePaysBobViaCarol", true}, {"AlicesPayBob", true}, {"ring.yml", true}, {"ring", true}, {"lnd.json", true}, {"Ring", false}, {"", false}}
	for _, tt := range tests {
		err := ValidateSource(tt.name)
		if (err == nil) != tt.ok {
			t.Errorf("%q: err %v", tt.name, err)
		}
		if err != nil && !strings.Contains(err.Error(), "use AlicePaysBob, AlicePaysBobViaCarol, AlicesPayBob, a generator (chain, ring, star, grid, random, scalefree), a topology .yml file") {
			t.Errorf("%q: message %v", tt.name, err)
		}
	}
}

func TestNodeLimits(t *testing.T) {
	doc := "nodes:\n  - name: alice\n  - name: bob\n    cpus: 0.5\n    memory: 512m\nchannels:\n  - {from: alice, to: bob}\npayers: [alice]\npayee: bob\n"
	topo, err := Parse([]byte(doc), "t.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !topo.HasLimits() || topo.Nodes[1].CPUs != 0.5 || topo.Nodes[1].Memory != "512m" || !topo.Nodes[0].Limits().Zero() {
		t.Fatalf("limits: %+v", topo.Nodes)
	}
	for bad, want := range map[string]string{
		strings.Replace(doc, "cpus: 0.5", "cpus: -1", 1):      "nodes[1].cpus -1",
		strings.Replace(doc, "memory: 512m", "memory: 1x", 1): `nodes[1].memory "1x"`,
		strings.Replace(doc, "memory: 512m", "memory: 1m", 1): "below Docker's minimum",
		strings.Replace(doc, "cpus: 0.5", "cpus: 0.001", 1):   "below Docker's minimum",
	} {
		if _, err := Parse([]byte(bad), "t.yml"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q, got %v", want, err)
		}
	}
}
