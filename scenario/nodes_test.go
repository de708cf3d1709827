package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const twoSpecs = `topology: AlicePaysBob
params:
  Concurrency: [20, 40]
nodes:
  - lnd@v0.21.0-beta
  - {name: old, spec: lnd@v0.20.2-beta, profile: bottlepay, baseline: true}
`

func TestCasesAreSpecsTimesParams(t *testing.T) {
	s, err := Parse([]byte(twoSpecs))
	if err != nil {
		t.Fatal(err)
	}
	if s.Baseline != "old" || s.Nodes[1].Profile != "bottlepay" {
		t.Fatalf("nodes %+v baseline %q", s.Nodes, s.Baseline)
	}
	var ids []string
	for _, c := range s.Cases() {
		ids = append(ids, c.ID()+"@"+c.Node)
	}
	want := "Node=v0.21.0-beta/Concurrency=20@v0.21.0-beta Node=v0.21.0-beta/Concurrency=40@v0.21.0-beta Node=old/Concurrency=20@old Node=old/Concurrency=40@old"
	if got := strings.Join(ids, " "); got != want {
		t.Fatalf("cases\n%s\nwant\n%s", got, want)
	}
	if k := s.Cases()[0].NetworkKey(); k != "Node=v0.21.0-beta" {
		t.Fatalf("network key %q: cases of different specs must not share a network", k)
	}
	back, err := Parse(s.YAML())
	if err != nil || len(back.Cases()) != 4 || back.Baseline != "old" || back.Nodes[1].Text() != s.Nodes[1].Text() {
		t.Fatalf("YAML round trip: %+v %v\n%s", back, err, s.YAML())
	}
}

func TestOneSpecKeepsIDs(t *testing.T) {
	s := Default()
	if id := s.Cases()[0].ID(); id != "Concurrency=20/TotalPayments=100" {
		t.Fatalf("id %q changed for a one-spec scenario", id)
	}
	s.Nodes, _ = ParseNodeFlags([]string{"lnd@v0.20.2-beta"})
	if c := s.Cases()[0]; c.ID() != "Concurrency=20/TotalPayments=100" || c.Node != "v0.20.2-beta" {
		t.Fatalf("case %+v", c)
	}
}

func TestNodeFlags(t *testing.T) {
	specs, err := ParseNodeFlags([]string{"mine=lnd@src:.", "lnd@v0.21.0-beta+profile=default"})
	if err != nil || specs[0].Label != "mine" || specs[1].Label != "v0.21.0-beta+default" {
		t.Fatalf("%+v %v", specs, err)
	}
	if _, err := ParseNodeFlags([]string{"lnd"}); err == nil || !strings.Contains(err.Error(), "--node") {
		t.Fatalf("err %v", err)
	}
}

func TestSpecsRefusedWithAFix(t *testing.T) {
	for doc, want := range map[string]string{
		"topology: AlicePaysBob\nnodes: [lnd@v0.21.0-beta, lnd@v0.21.0-beta]\n":                                      `label "v0.21.0-beta" names two specs`,
		"topology: AlicePaysBob\nnodes: [lnd@v0.21.0-beta]\nbaseline: nope\n":                                        `baseline "nope": name one of`,
		"topology: AlicePaysBob\nnodes: [{name: a, spec: lnd@v0.21.0-beta, color: red}]\n":                           "nodes[0].color: unknown key",
		"topology: AlicePaysBob\nnodes: [{name: a}]\n":                                                               "nodes[0].spec: name the build",
		"topology: AlicePaysBob\nnodes: lnd@v0.21.0-beta\n":                                                          "nodes: write a list",
		"topology: AlicePaysBob\nnodes: [{name: a/b, spec: lnd@v0.21.0-beta}]\n":                                     `label "a/b"`,
		"topology: AlicePaysBob\nnodes: [cln@v1]\n":                                                                  "use cln@src:PATH",
		"topology: AlicePaysBob\nnodes: [eclair@v1]\n":                                                               `implementation "eclair"`,
		"topology: AlicePaysBob\nnode: {profile: fast}\n":                                                            `node.profile "fast"`,
		"topology: AlicePaysBob\nnodes: [{spec: lnd@v1, baseline: true}, {name: b, spec: lnd@v2, baseline: true}]\n": "already the baseline",
	} {
		if _, err := Parse([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", doc, err, want)
		}
	}
}

func TestMixedTopology(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/mixed.yml"
	topo := `nodes:
  - {name: alice}
  - {name: carol, node: old}
  - {name: dave, node: "lnd@v0.19.0-beta"}
  - {name: erin, version: v0.18.0-beta}
  - {name: bob}
channels:
  - {from: alice, to: carol}
  - {from: carol, to: dave}
  - {from: dave, to: erin}
  - {from: erin, to: bob}
payers: [alice]
payee: bob
`
	if err := os.WriteFile(file, []byte(topo), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Parse([]byte("name: mixed\ntopology: " + file + "\nnodes: [lnd@v0.21.0-beta, {name: old, spec: lnd@v0.20.2-beta}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	s.BuildKeys = map[string]string{"v0.21.0-beta": "k21", "old": "k20", "v0.19.0-beta": "k19", "v0.18.0-beta": "k18"}
	all, err := s.AllSpecs()
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, sp := range all {
		labels = append(labels, sp.Label)
	}
	if got := strings.Join(labels, " "); got != "v0.21.0-beta old v0.19.0-beta v0.18.0-beta" {
		t.Fatalf("all specs %q", got)
	}
	for _, c := range s.Cases() {
		got, err := s.CaseTopology(c)
		if err != nil {
			t.Fatal(err)
		}
		var nodes []string
		for _, n := range got.Nodes {
			nodes = append(nodes, n.Name+":"+n.Spec+":"+n.Version+":"+n.Build)
		}
		want := "alice:" + c.Node + ":" + s.Specs()[0].Version() + ":k21"
		if c.Node == "old" {
			want = "alice:old:v0.20.2-beta:k20"
		}
		want += " carol:old:v0.20.2-beta:k20 dave:v0.19.0-beta:v0.19.0-beta:k19 erin:v0.18.0-beta:v0.18.0-beta:k18"
		if !strings.HasPrefix(strings.Join(nodes, " "), want) {
			t.Errorf("case %s: nodes %v, want prefix %s", c.ID(), nodes, want)
		}
	}
	for doc, want := range map[string]string{
		"nodes:\n  - {name: alice, node: nope}\n  - {name: bob}\nchannels: [{from: alice, to: bob}]\npayers: [alice]\npayee: bob\n":                       `node "nope" is neither a spec label`,
		"nodes:\n  - {name: alice, node: old, version: v1}\n  - {name: bob}\nchannels: [{from: alice, to: bob}]\npayers: [alice]\npayee: bob\n":           "not both",
		"nodes:\n  - {name: alice, node: \"lnd@v9+profile=default\"}\n  - {name: bob}\nchannels: [{from: alice, to: bob}]\npayers: [alice]\npayee: bob\n": "",
	} {
		if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		err := s.CheckTopologies()
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: err %v, want %q", doc, err, want)
		}
	}
}

func TestCLNModesNeedCLNPayers(t *testing.T) {
	s, err := Parse([]byte("topology: AlicePaysBob\nnodes: [lnd@v0.21.0-beta]\nparams:\n  Mode: [invoice, xpay]\n"))
	if err == nil {
		err = s.Validate()
	}
	if err == nil || !strings.Contains(err.Error(), "Mode=xpay is a Core Lightning payment command, and payer alice runs lnd") {
		t.Errorf("xpay on an LND payer: %v", err)
	}
	s, err = Parse([]byte("topology: AlicePaysBob\nnodes: [cln@src:/tmp/cln]\nparams:\n  Mode: [sendpay]\n"))
	if err == nil {
		err = s.Validate()
	}
	if err != nil {
		t.Errorf("sendpay on a CLN payer: %v", err)
	}
}

// A file whose modes need CLN payers loads with LND's default node: the
// command line's --node may make them CLN, and the run validates after.
func TestCLNModesCheckedAfterTheNodesAreKnown(t *testing.T) {
	s, err := Parse([]byte("topology: AlicePaysBob\nparams:\n  Mode: [xpay, sendpay]\n"))
	if err != nil {
		t.Fatalf("the file alone: %v", err)
	}
	if err := s.Validate(); err == nil {
		t.Error("xpay on the default LND node validated")
	}
	s.Nodes, _ = ParseNodeFlags([]string{"cln=cln@src:/tmp/cln"})
	if err := s.Validate(); err != nil {
		t.Errorf("xpay with --node cln: %v", err)
	}
}

// The shipped CLN scenarios load and name CLN specs.
func TestShippedCLNScenarios(t *testing.T) {
	files, _ := filepath.Glob("../bench/scenarios/CLN*.yml")
	if len(files) < 5 {
		t.Fatalf("CLN scenarios: %v", files)
	}
	for _, f := range files {
		s, err := Load(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		cln := false
		for _, sp := range s.Specs() {
			cln = cln || sp.Implementation() == "cln"
		}
		if !cln {
			t.Errorf("%s: no cln@src: spec", f)
		}
	}
}

// The shipped profiles scenario loads: three specs of one build, LND's own
// defaults the baseline, in duet.
func TestShippedProfilesScenario(t *testing.T) {
	s, err := Load("../bench/scenarios/Profiles.yml")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sp := range s.Specs() {
		got = append(got, sp.Label+"="+sp.Profile)
	}
	if strings.Join(got, " ") != "default=default tuned=tuned bottlepay=bottlepay" || s.Baseline != "default" || s.Design() != DesignDuet {
		t.Errorf("specs %v, baseline %q, design %s", got, s.Baseline, s.Design())
	}
}
