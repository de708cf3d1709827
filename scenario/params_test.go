package scenario

import (
	"strings"
	"testing"
)

func TestParseOverride(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr string
	}{
		{"Concurrency=20,40", []string{"20", "40"}, ""},
		{"Concurrency= 20 , 40 ", []string{"20", "40"}, ""},
		{"Mode=keysend", []string{"keysend"}, ""},
		{"CarolsCount=0,1", []string{"0", "1"}, ""},
		{"Concurrency=0", nil, "must be a positive integer"},
		{"Concurrency=-3", nil, "must be a positive integer"},
		{"Concurrency=abc", nil, "must be a positive integer"},
		{"Concurrency=1.5", nil, "must be a positive integer"},
		{"CarolsCount=-1", nil, "non-negative integer"},
		{"Concurency=20", nil, `param "Concurency" is unknown`},
		{"Concurrency", nil, "use Name=value"},
		{"Concurrency=", nil, "use Name=value"},
		{"Mode=fast", nil, "use one of invoice, pregenerated, keysend"},
		{"Concurrency=20,20", nil, "twice"},
	}
	for _, tt := range tests {
		p, err := ParseOverride(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: err %v, want containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if strings.Join(p.Values, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%q: values %v, want %v", tt.in, p.Values, tt.want)
		}
	}
}

func TestCasesCartesianProduct(t *testing.T) {
	cs := Cases([]Param{{"Concurrency", []string{"20", "40"}}, {"CarolsCount", []string{"0", "1", "2"}}})
	if len(cs) != 6 {
		t.Fatalf("got %d cases, want 6", len(cs))
	}
	want := []string{
		"Concurrency=20/CarolsCount=0", "Concurrency=20/CarolsCount=1", "Concurrency=20/CarolsCount=2",
		"Concurrency=40/CarolsCount=0", "Concurrency=40/CarolsCount=1", "Concurrency=40/CarolsCount=2",
	}
	for i, c := range cs {
		if c.ID() != want[i] {
			t.Errorf("case %d = %s, want %s", i, c.ID(), want[i])
		}
	}
	if cs[1].NetworkKey() != "CarolsCount=1" || cs[1].Workload.Concurrency != 20 {
		t.Errorf("accessors wrong: key %q", cs[1].NetworkKey())
	}
	if len(Cases(nil)) != 1 {
		t.Errorf("no params must give one case")
	}
}

func TestWorkloadDefaults(t *testing.T) {
	tests := []struct {
		values []Value
		want   Workload
	}{
		{nil, Workload{Concurrency: 1, TotalPayments: 100, Rate: 0, Mode: ModeInvoice, AmountSat: 100}},
		{[]Value{{"Concurrency", "20"}}, Workload{Concurrency: 20, TotalPayments: 100, Mode: ModeInvoice, AmountSat: 100}},
		{[]Value{{"TotalPayments", "50"}, {"Rate", "40"}}, Workload{Concurrency: 1, TotalPayments: 50, Rate: 40, Mode: ModeInvoice, AmountSat: 100}},
		{[]Value{{"Mode", "keysend"}, {"AmountSat", "2500"}}, Workload{Concurrency: 1, TotalPayments: 100, Mode: ModeKeysend, AmountSat: 2500}},
		{[]Value{{"CarolsCount", "3"}}, Workload{Concurrency: 1, TotalPayments: 100, Mode: ModeInvoice, AmountSat: 100}},
	}
	for _, tt := range tests {
		if got := NewCase(tt.values).Workload; got != tt.want {
			t.Errorf("%v: workload %+v, want %+v", tt.values, got, tt.want)
		}
	}
	if (Workload{Rate: 5}).OpenLoop() == false || (Workload{Concurrency: 5}).OpenLoop() {
		t.Errorf("OpenLoop wrong")
	}
}

// Every expanded case carries its workload: nobody re-reads the params.
func TestCasesCarryWorkload(t *testing.T) {
	cs := Cases([]Param{{"Rate", []string{"10", "20"}}, {"TotalPayments", []string{"30"}}})
	for i, want := range []int{10, 20} {
		if w := cs[i].Workload; w.Rate != want || w.TotalPayments != 30 || w.Concurrency != 1 {
			t.Errorf("case %s: workload %+v", cs[i].ID(), w)
		}
	}
}

// Each default is a valid value of its param.
func TestDefaultsAreValid(t *testing.T) {
	for _, s := range Known {
		if s.Default == "" {
			continue
		}
		if err := (Param{Name: s.Name, Values: []string{s.Default}}).Validate(); err != nil {
			t.Errorf("default of %s: %v", s.Name, err)
		}
	}
}

func TestGraphParams(t *testing.T) {
	s, err := Parse([]byte("topology: random\nparams:\n  NodeCount: [10, 25]\n  Seed: 7\n  Degree: 3\n  Capacity: uniform:1000000:5000000\n"))
	if err != nil {
		t.Fatal(err)
	}
	cases := s.Cases()
	if len(cases) != 2 || cases[0].NetworkKey() == cases[1].NetworkKey() {
		t.Fatalf("cases %v: NodeCount must split networks", cases)
	}
	topo, err := s.CaseTopology(cases[1])
	if err != nil {
		t.Fatal(err)
	}
	if len(topo.Nodes) != 25 || len(topo.Pairs) != 20 || topo.Nodes[0].Implementation != "lnd" {
		t.Errorf("NodeCount=25: %s, %d pairs", topo, len(topo.Pairs))
	}
	if cases[1].Texts()["Capacity"] != "uniform:1000000:5000000" {
		t.Errorf("texts %v", cases[1].Texts())
	}
	for _, tc := range []struct{ doc, want string }{
		{"topology: AlicePaysBob\nparams:\n  NodeCount: 10\n", "param NodeCount: topology AlicePaysBob is not generated"},
		{"topology: random\nparams:\n  Graph: mesh\n", `param Graph="mesh": use one of chain, ring`},
		{"topology: random\nparams:\n  Capacity: fixed:1\n", `param Capacity="fixed:1"`},
		{"topology: random\nparams:\n  NodeCount: 1\n", `param NodeCount="1"`},
	} {
		if _, err := Parse([]byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want %q", tc.doc, err, tc.want)
		}
	}
	// Pairs draws random traffic on any topology; Graph replaces the topology.
	s, err = Parse([]byte("topology: AlicePaysBobViaCarol\nparams:\n  CarolsCount: 2\n  Pairs: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if topo, err := s.CaseTopology(s.Cases()[0]); err != nil || len(topo.Pairs) != 2 {
		t.Errorf("Pairs on a built-in: %v, %v", topo.Pairs, err)
	}
	if got := s.WithoutGenerator("topology.yml"); got.Topology != "topology.yml" || len(got.Params) != 1 || got.Params[0].Name != "CarolsCount" {
		t.Errorf("WithoutGenerator: %+v", got)
	}
}

func TestRatePerPair(t *testing.T) {
	s, err := Parse([]byte("topology: random\nparams:\n  RatePerPair: 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	w := s.Cases()[0].Workload
	if !w.OpenLoop() || w.PerSecond(5) != 15 {
		t.Errorf("RatePerPair 3 over 5 pairs: open %v, %g/s", w.OpenLoop(), w.PerSecond(5))
	}
	if _, err := Parse([]byte("topology: random\nparams:\n  Rate: 10\n  RatePerPair: 3\n")); err == nil || !strings.Contains(err.Error(), "Rate and RatePerPair") {
		t.Errorf("both rates: err %v", err)
	}
}
