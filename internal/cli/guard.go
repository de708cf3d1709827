package cli

import (
	"fmt"
	"runtime"

	"github.com/lnbench/lnbench/footprint"
	"github.com/lnbench/lnbench/scenario"
)

// memAvailable reads the machine's available memory; tests replace it.
var memAvailable = footprint.MemAvailable

// guardMemory refuses, before anything starts, a scenario whose largest
// network would not fit in this machine's available memory.
func guardMemory(s scenario.Scenario) error {
	est, available, err := largestNetwork(s)
	if err != nil {
		return err
	}
	return est.Check(available)
}

// fitDesign falls back to the sequential design when a launch pair's
// networks, up together, would not fit in the available memory, and says
// so; "" when the design stands.
func fitDesign(s *scenario.Scenario) (string, error) {
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
	available, err := memAvailable()
	if err != nil {
		return footprint.Estimate{}, 0, err
	}
	limit, err := s.Node.Limits().MemoryBytes()
	if err != nil {
		return footprint.Estimate{}, 0, err
	}
	// The largest footprint among the node specs sizes every node.
	var perNode int64
	for _, sp := range s.Specs() {
		perNode = max(perNode, footprint.NodeBytesFor(sp.Footprint))
	}
	if perNode == 0 {
		perNode = footprint.NodeBytes
	}
	parallel := footprint.StartParallelism(runtime.NumCPU(), available)
	return footprint.EstimateFor(largest, parallel, perNode, limit), available, nil
}
