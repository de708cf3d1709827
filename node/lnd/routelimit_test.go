package lnd

import (
	"strings"
	"testing"
)

func TestRouteLimit(t *testing.T) {
	tests := []struct {
		flags []string
		want  int
	}{
		// 0.95·0.6^8 = 0.016 ≥ 0.01, 0.95·0.6^9 = 0.0096: the payer's own
		// channel and eight more (a 10-hop line failed on lnd v0.21.0).
		{nil, 9},
		{[]string{"--routerrpc.minrtprob=0.00001"}, 23},
		{[]string{"--routerrpc.apriori.hopprob=0.9"}, 44},
		{[]string{"--routerrpc.minrtprob=0.5", "--routerrpc.minrtprob=0.00001"}, 23}, // the last one counts
		{[]string{"--routerrpc.minrtprob=0"}, 0},
		{[]string{"--routerrpc.estimator=bimodal"}, 0},
	}
	for _, tt := range tests {
		got, why := RouteLimit(tt.flags)
		if got != tt.want {
			t.Errorf("%q: %d hops, want %d", tt.flags, got, tt.want)
		}
		if got != 0 && !strings.Contains(why, "--routerrpc.minrtprob=") {
			t.Errorf("%q: the reason %q names no flag that lifts the limit", tt.flags, why)
		}
	}
}
