package sweep

import (
	"testing"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/scenario"
)

func values(conc, rate string) []scenario.Value {
	return []scenario.Value{{Name: "Concurrency", Value: conc}, {Name: "Rate", Value: rate}}
}

func TestWithin(t *testing.T) {
	s := New(&scenario.Sweep{Param: "Rate", MaxP99Ms: 1000, MaxErrorRate: 0.05})
	tests := []struct {
		name string
		c    analysis.Case
		want bool
	}{
		{"fast and clean", analysis.Case{Payments: 100, Succeeded: 100, Latency: analysis.Latency{P99: 999}}, true},
		{"p99 over", analysis.Case{Payments: 100, Succeeded: 100, Latency: analysis.Latency{P99: 1001}}, false},
		{"errors over", analysis.Case{Payments: 100, Succeeded: 90, Failed: 10}, false},
		{"errors at the bound", analysis.Case{Payments: 100, Succeeded: 95, Failed: 5}, true},
		{"nothing succeeded", analysis.Case{Payments: 10, Failed: 10}, false},
	}
	for _, tt := range tests {
		if got := s.Within(tt.c); got != tt.want {
			t.Errorf("%s: Within = %v, want %v", tt.name, got, tt.want)
		}
	}
	off := New(&scenario.Sweep{Param: "Rate"})
	if !off.Within(analysis.Case{Payments: 10, Succeeded: 1, Failed: 9, Latency: analysis.Latency{P99: 1e9}}) {
		t.Error("bounds ≤ 0 are off: only a success is required")
	}
}

func TestObserveStopsOnlyItsGroup(t *testing.T) {
	s := New(&scenario.Sweep{Param: "Rate", MaxP99Ms: 1000})
	if g := s.Group(values("2", "100")); g != "Concurrency=2" {
		t.Errorf("Group = %q", g)
	}
	if st := s.Step(values("2", "100")); st != "Rate=100" {
		t.Errorf("Step = %q", st)
	}
	ok := analysis.Case{Payments: 10, Succeeded: 10, Latency: analysis.Latency{P99: 10}}
	slow := analysis.Case{Payments: 10, Succeeded: 10, Latency: analysis.Latency{P99: 5000}}
	if s.Observe(values("2", "100"), ok) || s.Skip(values("2", "200")) {
		t.Fatal("a step within the bounds stopped its group")
	}
	if !s.Observe(values("2", "200"), slow) {
		t.Fatal("a step beyond the bounds did not break")
	}
	if !s.Skip(values("2", "400")) {
		t.Error("later step of the broken group not skipped")
	}
	if s.Skip(values("4", "400")) {
		t.Error("another group skipped")
	}
	var none *Sweep = New(nil)
	if none.Observe(values("2", "1"), slow) || none.Skip(values("2", "1")) {
		t.Error("no sweep configured must neither break nor skip")
	}
}

func TestSaturated(t *testing.T) {
	for _, tc := range []struct {
		offered, served float64
		want            bool
	}{
		{0, 0, false},       // closed loop
		{100, 100, false},   // served all
		{100, 95.01, false}, // within the tolerance
		{100, 94.9, true},
		{100, 0, true}, // nothing completed twice
	} {
		c := analysis.Case{OfferedPerSec: tc.offered, ServedPerSec: tc.served, Succeeded: 10}
		if got := Saturated(c); got != tc.want {
			t.Errorf("offered %g served %g: saturated %v, want %v", tc.offered, tc.served, got, tc.want)
		}
		if New(&scenario.Sweep{Param: "Rate"}).Within(c) == tc.want {
			t.Errorf("offered %g served %g: Within agrees with saturation", tc.offered, tc.served)
		}
	}
}
