package runner

import (
	"slices"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/scenario"
)

func TestCPUSets(t *testing.T) {
	cores := func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	for _, tt := range []struct {
		mode             string
		cpus             []int
		networks, actors int
		want             string // cpuList of each set, space-separated; "" shared
	}{
		{"", cores(2), 2, 3, ""},               // the 2-core VM: shared
		{"", cores(6), 2, 3, "0-2 3-5"},        // a core per actor
		{"", cores(5), 2, 3, ""},               // one short
		{"", cores(16), 3, 3, "0-4 5-9 10-14"}, // even sets, the rest unused
		{scenario.CPUsSplit, cores(2), 2, 3, "0 1"},
		{scenario.CPUsSplit, cores(1), 2, 3, ""},
		{scenario.CPUsShared, cores(64), 2, 3, ""},
		{"", []int{0, 2, 4, 6, 8, 10}, 2, 3, "0,2,4 6,8,10"},
	} {
		var got []string
		for _, s := range cpuSets(tt.mode, tt.cpus, tt.networks, tt.actors) {
			got = append(got, backend.CPUList(s))
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("%q %v %d×%d: %q, want %q", tt.mode, tt.cpus, tt.networks, tt.actors, got, tt.want)
		}
	}
	if d := describeCPUs("", cores(2), 2, 3); !strings.Contains(d, "shared: 2 networks on the host's 2 CPUs (a CPU set per network needs a core per actor, 6 for 2 networks of 3 actors") {
		t.Errorf("auto on 2 cores: %s", d)
	}
	if d := describeCPUs(scenario.CPUsSplit, cores(2), 2, 3); !strings.HasPrefix(d, "split: network 1 of each round on CPUs 0, network 2 of each round on CPUs 1") {
		t.Errorf("split: %s", d)
	}
	if !slices.Equal(allowedCPUs(), allowedCPUs()) || len(allowedCPUs()) == 0 {
		t.Error("the harness's affinity mask reads empty")
	}
}
