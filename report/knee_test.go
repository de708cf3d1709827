package report

import (
	"strings"
	"testing"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/scenario"
)

func TestKnee(t *testing.T) {
	row := func(rate string, pps, p99 float64, failed int) Row {
		return Row{Params: []scenario.Value{{Name: "TotalPayments", Value: "100"}, {Name: "Rate", Value: rate}},
			Case: analysis.Case{ID: "TotalPayments=100/Rate=" + rate, PaymentsPerSec: pps, Payments: 100, Succeeded: 100 - failed, Failed: failed,
				Latency: analysis.Latency{P99: p99}}}
	}
	r := Report{Manifest: record.Manifest{Scenario: scenario.Scenario{Sweep: &scenario.Sweep{Param: "Rate", MaxP99Ms: 1000, MaxErrorRate: 0.05}}}}
	r.Cases = []Row{row("50", 48, 200, 0), row("100", 90, 600, 0), row("200", 110, 1500, 0), row("400", 60, 3000, 30)}
	ks := Knees(r)
	if len(ks) != 1 || ks[0].Best == nil || ks[0].Best.ID != "TotalPayments=100/Rate=100" || ks[0].BrokenAt != "Rate=200" {
		t.Fatalf("knees %+v", ks)
	}
	if l := KneeLines(r); len(l) != 1 || !strings.Contains(l[0], "knee at TotalPayments=100/Rate=100: 90.00 payments/s") {
		t.Fatalf("lines %v", l)
	}
	r.Cases = []Row{row("400", 60, 3000, 0)}
	if l := KneeLines(r); !strings.Contains(l[0], "no Rate step stayed within the bounds") {
		t.Fatalf("lines %v", l)
	}
	r.Scenario.Sweep = nil
	if Knees(r) != nil {
		t.Fatal("knee without a sweep")
	}
}
