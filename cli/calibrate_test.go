package cli

import (
	"strings"
	"testing"

	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage/footprint"
	"github.com/lnbench/lnbench/usage/guard"
)

func TestCalibrationScenario(t *testing.T) {
	guard.MemAvailable = func() (int64, error) { return 64 << 30, nil }
	defer func() { guard.MemAvailable = footprint.MemAvailable }()
	specs := func(s scenario.Scenario) (out []string) {
		for _, sp := range s.Nodes {
			out = append(out, sp.Label+"="+sp.Build)
		}
		return out
	}
	s := scenario.Default()
	if err := calibrationScenario(&s, 12, nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(specs(s), " "); got != "a=lnd@v0.21.0-beta b=lnd@v0.21.0-beta" || s.Baseline != "a" || s.Job.LaunchCount != 12 || !strings.HasSuffix(s.Name, "-AA") {
		t.Errorf("A/A: %s, baseline %q, launches %d, name %q", got, s.Baseline, s.Job.LaunchCount, s.Name)
	}
	s = scenario.Default()
	if err := calibrationScenario(&s, 12, []string{"lnd@v0.20.2-beta", "slow=lnd@v0.20.2-beta+profile=default"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(specs(s), " "); got != "a=lnd@v0.21.0-beta v0.20.2-beta=lnd@v0.20.2-beta slow=lnd@v0.20.2-beta" || !strings.HasSuffix(s.Name, "-Detection") {
		t.Errorf("detection: %s, name %q", got, s.Name)
	}
	for _, tt := range []struct {
		against []string
		want    string
	}{
		{[]string{"a=lnd@v0.20.2-beta"}, "--against a=lnd@v0.20.2-beta: the label a is the baseline's"},
		{[]string{"lnd"}, "--against: node spec \"lnd\""},
	} {
		s = scenario.Default()
		if err := calibrationScenario(&s, 12, tt.against); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v, want %q", tt.against, err, tt.want)
		}
	}
}
