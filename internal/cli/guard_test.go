package cli

import (
	"strings"
	"testing"

	"github.com/lnbench/lnbench/footprint"
	"github.com/lnbench/lnbench/scenario"
)

func TestFitDesignFallsBackWhenAPairDoesNotFit(t *testing.T) {
	s := scenario.Default()
	s.Nodes, _ = scenario.ParseNodeFlags([]string{"a=lnd@v0.21.0-beta", "b=lnd@v0.21.0-beta"})
	s.Baseline = "a"
	defer func() { memAvailable = footprint.MemAvailable }()
	for _, tt := range []struct {
		availableMiB int64
		design       string
		fallback     bool
	}{
		{64 << 10, scenario.DesignDuet, false},
		{1100, scenario.DesignInterleaved, true}, // one network of 2 nodes fits (≈1 GiB with start peaks), two do not
		{1100, scenario.DesignSequential, false},
	} {
		memAvailable = func() (int64, error) { return tt.availableMiB << 20, nil }
		c := s
		c.Compare.Design = tt.design
		if err := guardMemory(c); err != nil {
			t.Fatalf("%d MiB: one network refused: %v", tt.availableMiB, err)
		}
		note, err := fitDesign(&c)
		if err != nil {
			t.Fatal(err)
		}
		if got := note != ""; got != tt.fallback {
			t.Errorf("%d MiB, %s: fallback %q", tt.availableMiB, tt.design, note)
		}
		if tt.fallback && (c.Compare.Design != scenario.DesignSequential || !strings.Contains(note, "fell back from "+tt.design+" to sequential")) {
			t.Errorf("after fallback: design %q, note %q", c.Compare.Design, note)
		}
	}
}
