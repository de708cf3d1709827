package runner

import (
	"strings"
	"testing"

	"github.com/lnbench/lnbench/scenario"
)

// An LND payer 20 hops from its payee is refused before anything starts,
// with the flag that lifts the limit; 9 hops, or the flag, pass.
func TestRouteLimitsRefuseALineLNDWouldNotPay(t *testing.T) {
	check := func(carols string, flags ...string) error {
		t.Helper()
		s := scenario.Default()
		s.Topology = "AlicePaysBobViaCarol"
		s.Params = []scenario.Param{{Name: "CarolsCount", Values: []string{carols}}}
		s.Node.Flags = flags
		return CheckRoutes(s, nil)
	}
	err := check("19")
	if err == nil || !strings.Contains(err.Error(), "alice→bob is 20 hops") || !strings.Contains(err.Error(), "--routerrpc.minrtprob=") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a 21-node line on LND: %v, want one line naming the hops and the flag", err)
	}
	if err := check("8"); err != nil {
		t.Errorf("9 hops: %v", err)
	}
	if err := check("9"); err == nil {
		t.Errorf("10 hops pass; LND v0.21.0 did not pay them")
	}
	if err := check("19", "--routerrpc.minrtprob=0.00001"); err != nil {
		t.Errorf("20 hops with the floor lowered: %v", err)
	}
}
