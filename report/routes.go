package report

import (
	"fmt"
	"strings"
)

// writeRoutes adds hops per payment, payments/s per hop count and route
// failures by reason, when the traffic had more than one payee (pairs
// drawn from the graph); one payer-payee route says nothing new here.
func writeRoutes(b *strings.Builder, r Report) {
	rs := r.Routes
	if rs == nil || rs.Payees < 2 {
		return
	}
	b.WriteString("\n## Routes (measured payments)\n\n")
	ht := Table{Header: []string{"Case", "Hops", "Succeeded", "Share", "Payments/s"}}
	for _, h := range rs.Hops {
		ht.Rows = append(ht.Rows, []string{h.Case, fmt.Sprint(h.Hops), fmt.Sprint(h.Payments), fmt.Sprintf("%.0f%%", 100*h.Share), fmt.Sprintf("%.2f", h.PerSecond)})
	}
	writeMarkdownTable(b, ht)
	if len(rs.Failures) == 0 {
		b.WriteString("\nNo payment failed.\n")
		return
	}
	b.WriteString("\nFailures by reason:\n\n")
	ft := Table{Header: []string{"Case", "Reason", "Payments"}}
	for _, f := range rs.Failures {
		ft.Rows = append(ft.Rows, []string{f.Case, f.Reason, fmt.Sprint(f.Count)})
	}
	writeMarkdownTable(b, ft)
}
