package report

import (
	"strings"
	"testing"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/scenario"
)

// A step that served less than it was offered (beyond 5%) is saturated:
// never the knee, however low its p99, and named in the knee's line.
func TestKneeServedBelowOffered(t *testing.T) {
	row := func(rate string, offered, served, pps float64) Row {
		return Row{Params: []scenario.Value{{Name: "Rate", Value: rate}},
			Case: analysis.Case{ID: "Rate=" + rate, PaymentsPerSec: pps, Payments: 100, Succeeded: 100,
				OfferedPerSec: offered, ServedPerSec: served, Latency: analysis.Latency{P99: 200}}}
	}
	for _, tc := range []struct {
		name     string
		rows     []Row
		knee     string // "" none
		saturate []string
	}{
		{"all served", []Row{row("50", 50, 49.5, 45), row("100", 100, 97, 90)}, "Rate=100", nil},
		{"within 5%", []Row{row("100", 100, 95.5, 90)}, "Rate=100", nil},
		{"served < offered at the top step", []Row{row("50", 50, 50, 45), row("100", 100, 80, 78)}, "Rate=50",
			[]string{"served 80.00/s < offered 100.00/s at Rate=100"}},
		{"every step saturated", []Row{row("50", 50, 30, 29)}, "", []string{"served 30.00/s < offered 50.00/s at Rate=50", "no Rate step stayed within"}},
		{"closed loop: no rates", []Row{row("50", 0, 0, 45)}, "Rate=50", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Report{Manifest: record.Manifest{Scenario: scenario.Scenario{Sweep: &scenario.Sweep{Param: "Rate", MaxP99Ms: 1000, MaxErrorRate: 0.05}}}, Cases: tc.rows}
			ks := Knees(r)
			if len(ks) != 1 {
				t.Fatalf("knees %+v", ks)
			}
			got := ""
			if ks[0].Best != nil {
				got = ks[0].Best.ID
			}
			if got != tc.knee {
				t.Errorf("knee %q, want %q", got, tc.knee)
			}
			line := KneeLines(r)[0]
			for _, w := range tc.saturate {
				if !strings.Contains(line, w) {
					t.Errorf("line %q lacks %q", line, w)
				}
			}
			if tc.saturate == nil && strings.Contains(line, "saturated") {
				t.Errorf("line %q names a saturation", line)
			}
		})
	}
}
