package scenario_test

import (
	"testing"

	"github.com/lnbench/lnbench/load"
	"github.com/lnbench/lnbench/scenario"
)

// The scenario is the home of the valid payment modes; the load generator
// must implement exactly those, under the same names.
func TestPaymentModesAreTheLoadGenerators(t *testing.T) {
	implemented := []string{load.ModeInvoice, load.ModePregenerated, load.ModeKeysend, load.ModeCreateInvoice, load.ModeXpay, load.ModeSendpay}
	if len(implemented) != len(scenario.PaymentModes) {
		t.Fatalf("scenario allows %v, load implements %v", scenario.PaymentModes, implemented)
	}
	for i, m := range scenario.PaymentModes {
		if implemented[i] != m {
			t.Errorf("mode %d: scenario %q, load %q", i, m, implemented[i])
		}
	}
}
