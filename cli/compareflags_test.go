package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/nodespec"
	"github.com/lnbench/lnbench/scenario"
	"github.com/spf13/pflag"
)

func TestCompareFlagsRefusals(t *testing.T) {
	dir := t.TempDir()
	two := []string{"run", "--node", "a=lnd@v0.21.0-beta", "--node", "b=lnd@v0.21.0-beta", "--baseline", "a"}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{append(two, "--order", "random"), `compare.order "random": use abba or shuffled`},
		{append(two, "--effect", "30"), `--effect "30": give a relative change, e.g. 3% or 0.03`},
		{append(two, "--order", "abba", "--seed", "4"), "compare.seed 4: a seed orders shuffled launches only"},
		{append(two, "--until-known", "--max-launches", "2"), "compare.max_launches 2 is below job.LaunchCount=6"},
		{[]string{"run", "--until-known"}, "compare.until_known: needs two node specs and a baseline"},
	} {
		args := append(append([]string(nil), tt.args...), "--artifacts", filepath.Join(dir, "artifacts"), "--images", filepath.Join(dir, "no-images"))
		refusedInOneLine(t, args, tt.want)
	}
}

func TestCompareFlagsAndDefaultLaunches(t *testing.T) {
	t.Chdir(t.TempDir()) // no bench/scenario.yml: the built-in scenario
	base := runFlags{startTimeout: 90 * time.Second, nodes: []string{"a=lnd@v0.21.0-beta", "b=lnd@v0.21.0-beta"}, baseline: "a"}
	f := base
	f.compare = compareFlags{seed: 7, untilKnown: true, effect: "3%"}
	s, err := loadScenario(nil, f)
	if err != nil {
		t.Fatal(err)
	}
	if s.Job.LaunchCount != scenario.DefaultCompareLaunches || s.Compare != (scenario.Compare{Order: scenario.OrderShuffled, Seed: 7, UntilKnown: true, Effect: 0.03}) {
		t.Errorf("LaunchCount %d, compare %+v", s.Job.LaunchCount, s.Compare)
	}
	if why := launchesWhy(s); !strings.Contains(why, "LaunchCount=6 per spec, the default of a comparison") || !strings.Contains(why, "in the interleaved design with the waiting networks frozen 6 launch pairs detect ≈") {
		t.Errorf("plan line reason: %q", why)
	}
	f = base
	f.quick = true
	if s, _ := loadScenario(nil, f); s.Job.LaunchCount != 1 || launchesWhy(s) != "" {
		t.Errorf("--quick keeps one launch: %d", s.Job.LaunchCount)
	}
	if s, _ := loadScenario(nil, runFlags{startTimeout: 90 * time.Second}); s.Job.LaunchCount != 1 {
		t.Errorf("one spec keeps LaunchCount 1, got %d", s.Job.LaunchCount)
	}
}

// --freeze-idle given, given false, or not given (the scenario's value or
// the default stays); on a backend that cannot pause, a default freeze is
// dropped with a note and an asked one refused.
func TestFreezeIdleFlag(t *testing.T) {
	var off, on = false, true
	for _, tt := range []struct {
		args []string
		want *bool
	}{
		{nil, nil},
		{[]string{"--freeze-idle"}, &on},
		{[]string{"--freeze-idle=false"}, &off},
	} {
		var f compareFlags
		fl := pflag.NewFlagSet("run", pflag.ContinueOnError)
		addCompareFlags(fl, &f)
		if err := fl.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		var s scenario.Scenario
		if err := f.apply(&s); err != nil {
			t.Fatal(err)
		}
		if got := s.Compare.FreezeIdle; (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
			t.Errorf("%v: freeze_idle %v, want %v", tt.args, got, tt.want)
		}
	}
	two := scenario.Scenario{Nodes: []nodespec.Spec{{Label: "a"}, {Label: "b"}}, Baseline: "a"}
	s := two
	note, err := fitFreeze(&s, lookupBackend("swarm"))
	if err != nil || !strings.Contains(note, "the swarm backend cannot pause") || s.Freezes() {
		t.Errorf("default freeze on swarm: %q %v, freezes %v", note, err, s.Freezes())
	}
	s = two
	s.Compare.FreezeIdle = &on
	if _, err := fitFreeze(&s, lookupBackend("swarm")); err == nil || !strings.Contains(err.Error(), "--freeze-idle=false") {
		t.Errorf("asked freeze on swarm: %v", err)
	}
	s = two
	if note, err := fitFreeze(&s, lookupBackend("local")); note != "" || err != nil || !s.Freezes() {
		t.Errorf("local: %q %v, freezes %v", note, err, s.Freezes())
	}
}
