package cli

import "testing"

// A --plots given wins; else $LNBENCH_PLOTS (a test suite's 0); else draw.
func TestPlotsFlagAndEnv(t *testing.T) {
	for _, c := range []struct {
		env       string
		flag, set bool
		skip      bool
	}{
		{"", true, false, false},
		{"0", true, false, true},
		{"false", true, false, true},
		{"1", true, false, false},
		{"not a bool", true, false, false},
		{"0", true, true, false},
		{"1", false, true, true},
		{"", false, true, true},
	} {
		t.Setenv(PlotsEnv, c.env)
		if got := (plotsFlag{on: c.flag, set: c.set}).options().SkipPlots; got != c.skip {
			t.Errorf("env %q, --plots=%v given %v: SkipPlots %v, want %v", c.env, c.flag, c.set, got, c.skip)
		}
	}
}
