package report

import (
	"strings"
	"testing"

	"github.com/lnbench/lnbench/analysis"
)

func TestRoutesSectionOnlyForManyPayees(t *testing.T) {
	routes := &analysis.Routes{Payees: 2, Hops: []analysis.HopCount{{Case: "c", Hops: 3, Payments: 4, Share: 1, PerSecond: 2}},
		Failures: []analysis.FailureCount{{Case: "c", Reason: "FAILURE_REASON_NO_ROUTE", Count: 1}}}
	var b strings.Builder
	writeMarkdownSection(&b, routesSection(Report{Routes: routes}))
	for _, want := range []string{"## Routes", "| c | 3 | 4 | 100% | 2.00 |", "FAILURE_REASON_NO_ROUTE"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
	routes.Payees = 1
	b.Reset()
	if s := routesSection(Report{Routes: routes}); len(s.Blocks) != 0 {
		t.Errorf("one payee wrote a section:\n%s", b.String())
	}
}
