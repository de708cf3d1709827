package runner

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/scenario"
)

// allowedCPUs are the CPUs the harness may run on (its affinity mask: a
// container's or taskset's restriction counts); a variable for tests.
var allowedCPUs = func() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var out []int
	for i := 0; i < len(set)*64; i++ {
		if set.IsSet(i) {
			out = append(out, i)
		}
	}
	return out
}

// cpuSets gives each of a duet round's networks its CPU set, or nil when
// they share every core. Auto (mode "") splits only where every actor of
// every network keeps a core of its own: below that a set per network
// measures a smaller machine than the verdict is about. split always
// splits (evenly, in CPU order), and shares when there are fewer CPUs
// than networks.
func cpuSets(mode string, cpus []int, networks, actors int) [][]int {
	if mode == scenario.CPUsShared || networks < 2 || len(cpus) < networks {
		return nil
	}
	if mode == "" && len(cpus) < networks*actors {
		return nil
	}
	out := make([][]int, networks)
	per := len(cpus) / networks
	for i := range out {
		out[i] = cpus[i*per : (i+1)*per]
	}
	return out
}

// describeCPUs is the design line's account of how duet's networks share
// the cores.
func describeCPUs(mode string, cpus []int, networks, actors int) string {
	if sets := cpuSets(mode, cpus, networks, actors); sets != nil {
		var parts []string
		for i, s := range sets {
			parts = append(parts, fmt.Sprintf("network %d of each round on CPUs %s", i+1, backend.CPUList(s)))
		}
		return fmt.Sprintf("split: %s (the round's first network in launch order takes the first set)", strings.Join(parts, ", "))
	}
	why := "compare.cpus shared"
	switch {
	case mode == scenario.CPUsSplit:
		why = fmt.Sprintf("split asked, but %d CPUs for %d networks", len(cpus), networks)
	case mode == "":
		why = fmt.Sprintf("a CPU set per network needs a core per actor, %d for %d networks of %d actors", networks*actors, networks, actors)
	}
	return fmt.Sprintf("shared: %d networks on the host's %d CPUs (%s; each network sees the other's load, as both specs see the same drift)", networks, len(cpus), why)
}
