// Package guard refuses, before anything starts, what this machine's
// memory cannot hold (the largest network, limits below LND's start peak
// or adding up to more than the machine has) and falls a paired design
// back to sequential when a launch pair's networks do not fit together.
package guard

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/lnbench/lnbench/nodespec"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage/footprint"
	"github.com/lnbench/lnbench/usage/limits"
)

// MemAvailable reads the machine's available memory; tests replace it.
var MemAvailable = footprint.MemAvailable

// Memory refuses, before anything starts, a scenario whose largest
// network would not fit in this machine's available memory, and memory
// limits that cannot hold: below what an LND node needs to start, or
// adding up to more than the machine has.
func Memory(s scenario.Scenario) error {
	if err := guardLimitFloor(s); err != nil {
		return err
	}
	est, available, err := largestNetwork(s)
	if err != nil {
		return err
	}
	if err := est.Check(available); err != nil {
		return err
	}
	return guardLimitSum(s, available)
}

// MemoryFloorEnv overrides the per-node memory floor: "off", or a size in
// Docker's notation.
const MemoryFloorEnv = "LNBENCH_MEMORY_FLOOR"

// memoryFloor is the smallest memory limit an LND node's container may
// get: its measured start peak (footprint.StartPeakBytes), unless
// LNBENCH_MEMORY_FLOOR says otherwise; 0 when off.
func memoryFloor() (int64, error) {
	v := strings.TrimSpace(os.Getenv(MemoryFloorEnv))
	switch v {
	case "":
		return footprint.StartPeakBytes, nil
	case "off", "0":
		return 0, nil
	}
	b, err := limits.Limits{Memory: v}.MemoryBytes()
	if err != nil {
		return 0, fmt.Errorf("%s=%q: use off or a size such as 320m", MemoryFloorEnv, v)
	}
	return b, nil
}

// guardLimitFloor refuses a memory limit below what an LND node needs to
// start: its container is OOM-killed before it answers. The scenario's
// node.memory when any node spec is LND, and every LND topology node's own.
func guardLimitFloor(s scenario.Scenario) error {
	floor, err := memoryFloor()
	if err != nil || floor == 0 {
		return err
	}
	below := func(limit string) bool {
		b, err := limits.Limits{Memory: limit}.MemoryBytes()
		return err == nil && b > 0 && b < floor
	}
	why := fmt.Sprintf("LND needs %s to start (its measured start peak, wallet scrypt included; smaller limits were OOM-killed at start), so the container would die before it answers", footprint.Human(floor))
	fix := fmt.Sprintf("%dm or more, or no limit (%s=off skips this check)", floor>>20, MemoryFloorEnv)
	if s.Node.Memory != "" && below(s.Node.Memory) && slices.ContainsFunc(s.Specs(), func(sp nodespec.Spec) bool { return sp.Implementation() == "lnd" }) {
		return fmt.Errorf("node.memory (--memory) %s: %s; use %s", s.Node.Memory, why, fix)
	}
	for _, c := range s.Cases() {
		if _, generated := c.Ints()["NodeCount"]; generated {
			continue // generated graphs set no node's own limits
		}
		topo, err := s.CaseTopology(c)
		if err != nil {
			return nil // CheckTopologies says what is wrong with it
		}
		for _, n := range topo.Nodes {
			if n.Memory != "" && n.Implementation == "lnd" && below(n.Memory) {
				return fmt.Errorf("topology %s: node %s's memory %s: %s; use memory: %s", topo.Name, n.Name, n.Memory, why, fix)
			}
		}
	}
	return nil
}

// guardLimitSum refuses memory limits that add up, over the largest
// network's nodes, to more than the machine has available with btcd and
// the harness: the limits promise memory the kernel cannot give, so the
// host's OOM killer, not the limits, would decide who dies.
func guardLimitSum(s scenario.Scenario, available int64) error {
	def, err := s.Node.Limits().MemoryBytes()
	if err != nil {
		return err
	}
	var worst struct {
		limited int
		total   int64
	}
	for _, c := range s.Cases() {
		var total int64
		limited := 0
		if n, generated := c.Ints()["NodeCount"]; generated {
			if def > 0 {
				total, limited = int64(n)*def, n
			}
		} else {
			topo, err := s.CaseTopology(c)
			if err != nil {
				return nil // CheckTopologies says what is wrong with it
			}
			for _, n := range topo.Nodes {
				b := def
				if n.Memory != "" {
					if b, err = n.Limits().MemoryBytes(); err != nil {
						return nil // the topology's own check names it
					}
				}
				if b > 0 {
					total += b
					limited++
				}
			}
		}
		if total > worst.total {
			worst.total, worst.limited = total, limited
		}
	}
	fixed := int64(footprint.ChainBytes + footprint.HarnessBytes)
	if worst.total == 0 || worst.total+fixed <= available {
		return nil
	}
	fit := (available - fixed) / int64(max(worst.limited, 1))
	return fmt.Errorf("memory limits of %d nodes add up to %s (node.memory/--memory and the topology's own), plus btcd and the harness ≈%s, but this machine has %s available (MemAvailable): the limits could not all be met; lower them to at most %dm per node, or drop them",
		worst.limited, footprint.Human(worst.total), footprint.Human(fixed), footprint.Human(available), max(fit>>20, 0))
}

// FitDesign falls back to the sequential design when a launch pair's
// networks, up together, would not fit in the available memory, and says
// so; "" when the design stands.
func FitDesign(s *scenario.Scenario) (string, error) {
	if !s.Paired() {
		return "", nil
	}
	est, available, err := largestNetwork(*s)
	if err != nil {
		return "", err
	}
	k := int64(len(s.Specs()))
	// A pair holds a network per spec: its nodes, its chain; one harness.
	need := k*(est.Bytes-footprint.HarnessBytes) + footprint.HarnessBytes
	if need <= available {
		return "", nil
	}
	asked := s.Design()
	s.Compare.Design = scenario.DesignSequential
	s.Compare.Fallback = fmt.Sprintf("fell back from %s to sequential: %d networks of %d nodes up together need ≈%d MiB, this machine has %d MiB available",
		asked, k, est.Nodes, need>>20, available>>20)
	return s.Compare.Fallback, nil
}

// NodeBytes is one node's steady size in the scenario's networks: the
// largest footprint among its node specs sizes every node.
func NodeBytes(s scenario.Scenario) int64 {
	var perNode int64
	for _, sp := range s.Specs() {
		perNode = max(perNode, footprint.NodeBytesFor(sp.Footprint))
	}
	if perNode == 0 {
		return footprint.NodeBytes
	}
	return perNode
}

// StartsPerCore is how many of the scenario's nodes may start at once per
// core: many where every spec's start is measured to mostly wait
// (nodespec.LightStart), else the CPU-bound starts' two.
func StartsPerCore(s scenario.Scenario) int {
	for _, sp := range s.Specs() {
		if !sp.LightStart() {
			return footprint.StartsPerCore
		}
	}
	return footprint.LightStartsPerCore
}

// largestNetwork estimates the memory of the scenario's largest network.
func largestNetwork(s scenario.Scenario) (footprint.Estimate, int64, error) {
	largest := 0
	for _, c := range s.Cases() {
		// A generated graph's size is its param: no need to generate it.
		if n, ok := c.Ints()["NodeCount"]; ok {
			largest = max(largest, n)
			continue
		}
		topo, err := s.CaseTopology(c)
		if err != nil {
			return footprint.Estimate{}, 0, err
		}
		largest = max(largest, len(topo.Nodes))
	}
	available, err := MemAvailable()
	if err != nil {
		return footprint.Estimate{}, 0, err
	}
	limit, err := s.Node.Limits().MemoryBytes()
	if err != nil {
		return footprint.Estimate{}, 0, err
	}
	perNode := NodeBytes(s)
	parallel := footprint.StartParallelism(runtime.NumCPU(), StartsPerCore(s), available, largest, perNode)
	return footprint.EstimateFor(largest, parallel, perNode, limit), available, nil
}
