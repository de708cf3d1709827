package report

import (
	"fmt"

	"github.com/lnbench/lnbench/record"
)

// routesSection is hops per payment, payments/s and latency percentiles
// per hop count and route failures by reason, when the traffic had more than one payee (pairs
// drawn from the graph); one payer-payee route says nothing new here.
func routesSection(r Report) Section {
	s := Section{Title: "Routes (measured payments)"}
	rs := r.Routes
	if rs == nil || rs.Payees < 2 {
		return s
	}
	ht := Table{Header: []string{"Case", "Hops", "Succeeded", "Share", "Payments/s", "p50 (ms)", "p90 (ms)", "p99 (ms)"}}
	for _, h := range rs.Hops {
		hops := fmt.Sprint(h.Hops)
		if h.Hops == 0 {
			// A succeeded payment has at least one hop: 0 is a payer that
			// does not say its route (CLN's pay and xpay).
			hops = "unknown"
		}
		ht.Rows = append(ht.Rows, []string{h.Case, hops, fmt.Sprint(h.Payments), fmt.Sprintf("%.0f%%", 100*h.Share), fmt.Sprintf("%.2f", h.PerSecond),
			f1(h.P50Ms), f1(h.P90Ms), f1(h.P99Ms)})
	}
	s.Blocks = []Block{tableBlock(ht)}
	if len(rs.Failures) == 0 {
		s.Blocks = append(s.Blocks, Block{Text: "No payment failed."})
		return s
	}
	ft := Table{Header: []string{"Case", "Reason", "Payments"}}
	for _, f := range rs.Failures {
		ft.Rows = append(ft.Rows, []string{f.Case, f.Reason, fmt.Sprint(f.Count)})
	}
	s.Blocks = append(s.Blocks, Block{Text: "Failures by reason:"}, tableBlock(ft))
	return s
}

// forwardsSection lists, per network, the nodes that forwarded HTLCs and how
// many did not: on a large graph most nodes forward nothing.
func forwardsSection(r Report) Section {
	s := Section{Title: "Forwarded HTLCs (intermediaries)"}
	if len(r.Forwards) == 0 {
		return s
	}
	var networks []string // in first-seen order
	idle := map[string]int{}
	busy := map[string][]record.Forward{}
	for _, f := range r.Forwards {
		if _, seen := idle[f.Network]; !seen {
			networks = append(networks, f.Network)
			idle[f.Network] = 0
		}
		if f.Count > 0 {
			busy[f.Network] = append(busy[f.Network], f)
		} else {
			idle[f.Network]++
		}
	}
	ft := Table{Header: []string{"Network", "Node", "Forwarded"}}
	for _, n := range networks {
		for _, f := range busy[n] {
			ft.Rows = append(ft.Rows, []string{n, f.Node, fmt.Sprint(f.Count)})
		}
		switch {
		case idle[n] > 0 && len(busy[n]) > 0:
			ft.Rows = append(ft.Rows, []string{n, fmt.Sprintf("%d other node(s)", idle[n]), "0"})
		case idle[n] > 0:
			ft.Rows = append(ft.Rows, []string{n, fmt.Sprintf("all %d node(s)", idle[n]), "0"})
		}
	}
	s.Blocks = []Block{tableBlock(ft)}
	return s
}
