package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/topology"
)

func TestFaultsBothForms(t *testing.T) {
	s, err := Parse([]byte(`
topology: AlicePaysBobViaCarol
params:
  TotalPayments: 20
job: {WarmupCount: 0, IterationCount: 2}
faults:
  - restart bob at 10s
  - kind: delay
    target: carol1
    delay: 50ms
    jitter: 5ms
    at: 3s
    for: 20s
  - {kind: loss, target: "alice~carol1", loss: 5, after_payments: 10, for: 15s}
  - {kind: pause, target: payee, at_iteration: 1, for: 5s}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"restart bob at 10s", "delay carol1 50ms jitter 5ms at 3s for 20s", "loss alice~carol1 5% after 10 payments for 15s", "pause payee at iteration 1 for 5s"}
	if len(s.Faults) != len(want) {
		t.Fatalf("faults %v", s.Faults)
	}
	for i, w := range want {
		if s.Faults[i].String() != w {
			t.Errorf("faults[%d] = %q, want %q", i, s.Faults[i], w)
		}
	}
	if s.Faults[1].Delay != 50*time.Millisecond {
		t.Errorf("delay %v", s.Faults[1].Delay)
	}
	// The artifacts' copy repeats them.
	back, err := Parse(s.YAML())
	if err != nil {
		t.Fatalf("%v\n%s", err, s.YAML())
	}
	if len(back.Faults) != 4 || back.Faults[2] != s.Faults[2] {
		t.Errorf("round trip lost faults: %v", back.Faults)
	}
	if err := s.CheckTopologies(); err != nil {
		t.Errorf("CheckTopologies: %v", err)
	}
}

func TestFaultsRefused(t *testing.T) {
	for _, tc := range []struct{ faults, says string }{
		{`faults: restart bob at 1s`, "faults: write a list"},
		{`faults: [{kind: restart, target: bob, when: 1s}]`, "faults[0].when: unknown key; use kind, target"},
		{`faults: [{target: bob, at: 1s}]`, "faults[0]: give kind"},
		{`faults: ["pause bob at 1s"]`, "faults[0]: fault \"pause bob at 1s\": pause needs how long it lasts"},
		{`faults: [[restart]]`, "faults[0]: give the one-line form"},
	} {
		_, err := Parse([]byte("topology: AlicePaysBob\n" + tc.faults + "\n"))
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v; want %q", tc.faults, err, tc.says)
		}
	}
}

func TestCheckFaults(t *testing.T) {
	base := func(f string) Scenario {
		s, err := Parse([]byte("topology: AlicePaysBob\nparams: {TotalPayments: 10}\njob: {IterationCount: 2}\nfaults: [\"" + f + "\"]\n"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for f, says := range map[string]string{
		"restart bob at 1s":               "",
		"restart payee at 1s":             "",
		"restart carol at 1s":             `no actor "carol"; name one of alice, bob, btcd`,
		"pause intermediary at 1s for 1s": "has no intermediary",
		"kill bob at iteration 2":         "numbered 0 to 1",
		"kill bob after 20 payments":      "measures 20 payments",
	} {
		err := base(f).CheckTopologies()
		if (says == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), says)) {
			t.Errorf("%s: %v; want %q", f, err, says)
		}
	}
	if a := FaultActors(mustTopo(t, "AlicePaysBobViaCarol")); strings.Join(a.Intermediaries, ",") != "carol1" || a.Payees[0] != "bob" {
		t.Errorf("actors %+v", a)
	}
	_ = faults.Chain
}

func mustTopo(t *testing.T, name string) topology.Topology {
	s := Default()
	s.Topology, s.Params = name, nil
	topo, err := s.CaseTopology(s.Cases()[0])
	if err != nil {
		t.Fatal(err)
	}
	return topo
}
