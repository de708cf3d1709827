package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/faults"
)

func TestCompareBlock(t *testing.T) {
	const two = "name: X\ntopology: AlicePaysBob\nnodes: [a=lnd@v0.21.0-beta, b=lnd@v0.21.0-beta]\nbaseline: a\n"
	for _, tt := range []struct {
		yml, err string
	}{
		{two + "compare: {order: shuffled, seed: 7, until_known: true, max_launches: 10, effect: 0.03}\n", ""},
		{two + "compare: {order: random}\n", "compare.order \"random\": use abba or shuffled"},
		{two + "compare: {design: parallel}\n", "compare.design \"parallel\": use sequential, interleaved, duet or duet-solo"},
		{two + "compare: {design: interleaved}\n", ""},
		{two + "compare: {design: duet-solo}\n", ""},
		{two + "compare: {design: duet-solo}\njob: {IterationCount: 3}\n", "compare.design duet-solo with job.IterationCount 3: it runs half the iterations in duet and half alone, and each half needs 2; set job.IterationCount ≥ 4"},
		{two + "compare: {seed: 7}\n", "compare.seed 7: a seed orders shuffled launches only"},
		{two + "compare: {effect: 3}\n", "compare.effect 3: give a relative change between 0 and 1"},
		{two + "job: {LaunchCount: 8}\ncompare: {until_known: true, max_launches: 4}\n", "compare.max_launches 4 is below job.LaunchCount=8"},
		{"name: X\ntopology: AlicePaysBob\ncompare: {until_known: true}\n", "compare.until_known: needs two node specs and a baseline"},
	} {
		_, err := Parse([]byte(tt.yml))
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%q: err %v, want %q", tt.yml, err, tt.err)
		}
	}
	s, err := Parse([]byte(two + "compare: {order: shuffled, seed: 7, until_known: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(s.YAML())
	if err != nil || back.Compare != (Compare{Order: OrderShuffled, Seed: 7, UntilKnown: true, MaxLaunches: DefaultMaxLaunches}) {
		t.Errorf("YAML round trip: %+v %v\n%s", back.Compare, err, s.YAML())
	}
}

// A comparison gets DefaultCompareLaunches unless LaunchCount is set; one spec keeps 1.
func TestCompareLaunchDefault(t *testing.T) {
	for _, tt := range []struct {
		yml  string
		want int
	}{
		{"name: X\ntopology: AlicePaysBob\nnodes: [a=lnd@v0.21.0-beta, b=lnd@v0.21.0-beta]\nbaseline: a\n", DefaultCompareLaunches},
		{"name: X\ntopology: AlicePaysBob\nnodes: [a=lnd@v0.21.0-beta, b=lnd@v0.21.0-beta]\nbaseline: a\njob: {LaunchCount: 1}\n", 1},
		{"name: X\ntopology: AlicePaysBob\nnodes: [a=lnd@v0.21.0-beta, b=lnd@v0.21.0-beta]\n", 1}, // no baseline: no verdicts
		{"name: X\ntopology: AlicePaysBob\n", 1},
	} {
		s, err := Parse([]byte(tt.yml))
		if err != nil {
			t.Fatal(err)
		}
		s.ApplyCompareDefaults()
		if s.Job.LaunchCount != tt.want {
			t.Errorf("%q: LaunchCount %d, want %d", tt.yml, s.Job.LaunchCount, tt.want)
		}
	}
	if _, err := Parse([]byte("name: X\ntopology: AlicePaysBob\njob: {LaunchCount: 0}\n")); err == nil {
		t.Error("an explicit LaunchCount: 0 must still be refused")
	}
}

func TestDesignDefaultsWhereItCanRun(t *testing.T) {
	two := Default()
	two.Nodes, _ = ParseNodeFlags([]string{"a=lnd@v0.21.0-beta", "b=lnd@v0.21.0-beta"})
	two.Baseline = "a"
	timed := two
	timed.Job.Duration = time.Minute
	faulty := two
	faulty.Faults = []faults.Spec{{}}
	chosen := faulty
	chosen.Compare.Design = DesignDuet
	for _, tt := range []struct {
		name   string
		s      Scenario
		design string
		paired bool
	}{
		{"one spec", Default(), DesignInterleaved, false},
		{"two specs", two, DesignInterleaved, true},
		{"timed job", timed, DesignSequential, false},
		{"faults", faulty, DesignSequential, false},
		{"chosen", chosen, DesignDuet, true},
	} {
		if got := tt.s.Design(); got != tt.design || tt.s.Paired() != tt.paired {
			t.Errorf("%s: design %s paired %v, want %s %v", tt.name, got, tt.s.Paired(), tt.design, tt.paired)
		}
	}
	// A chosen paired design with faults is refused in one line.
	if err := chosen.validateCompare(); err == nil || !strings.Contains(err.Error(), "compare.design duet with faults") {
		t.Errorf("duet with faults: %v", err)
	}
}

func TestFreezeIdleNeedsAnAloneDesign(t *testing.T) {
	const two = "name: X\ntopology: AlicePaysBob\nnodes: [a=lnd@v0.21.0-beta, b=lnd@v0.21.0-beta]\nbaseline: a\n"
	if _, err := Parse([]byte(two + "compare: {design: duet, freeze_idle: true}\n")); err == nil || !strings.Contains(err.Error(), "compare.freeze_idle: it freezes the waiting network") {
		t.Errorf("freeze_idle with duet: %v", err)
	}
	s, err := Parse([]byte(two + "compare: {design: interleaved, freeze_idle: true}\n"))
	if err != nil || !s.Freezes() || !strings.Contains(string(s.YAML()), "freeze_idle: true") {
		t.Errorf("freeze_idle with interleaved: %v, %+v", err, s.Compare)
	}
}

// The freeze is on by default where a design runs a network alone, off
// where the scenario says so or the design runs none alone; the YAML
// record keeps only what the scenario said.
func TestFreezesByDefaultWhereANetworkRunsAlone(t *testing.T) {
	const two = "name: X\ntopology: AlicePaysBob\nnodes: [a=lnd@v0.21.0-beta, b=lnd@v0.21.0-beta]\nbaseline: a\n"
	for _, c := range []struct {
		compare string
		want    bool
	}{
		{"", true}, // the default design: interleaved
		{"compare: {design: interleaved}\n", true},
		{"compare: {design: duet-solo}\njob: {IterationCount: 4}\n", true},
		{"compare: {design: interleaved, freeze_idle: false}\n", false},
		{"compare: {design: duet}\n", false},
		{"compare: {design: sequential}\n", false},
		{"compare: {design: duet, freeze_idle: false}\n", false},
	} {
		s, err := Parse([]byte(two + c.compare))
		if err != nil {
			t.Fatalf("%q: %v", c.compare, err)
		}
		if s.Freezes() != c.want {
			t.Errorf("%q: freezes %v, want %v", c.compare, s.Freezes(), c.want)
		}
		if said := strings.Contains(c.compare, "freeze_idle"); said != strings.Contains(string(s.YAML()), "freeze_idle") {
			t.Errorf("%q: the YAML record says freeze_idle %v, the scenario %v", c.compare, !said, said)
		}
	}
	one, err := Parse([]byte("name: X\ntopology: AlicePaysBob\n"))
	if err != nil || one.Freezes() {
		t.Errorf("one spec freezes %v (%v): nothing waits", one.Freezes(), err)
	}
}
