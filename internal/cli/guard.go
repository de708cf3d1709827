package cli

import (
	"runtime"

	"github.com/lnbench/lnbench/footprint"
	"github.com/lnbench/lnbench/scenario"
)

// guardMemory refuses, before anything starts, a scenario whose largest
// network would not fit in this machine's available memory.
func guardMemory(s scenario.Scenario) error {
	largest := 0
	for _, c := range s.Cases() {
		// A generated graph's size is its param: no need to generate it.
		if n, ok := c.Ints()["NodeCount"]; ok {
			largest = max(largest, n)
			continue
		}
		topo, err := s.CaseTopology(c)
		if err != nil {
			return err
		}
		largest = max(largest, len(topo.Nodes))
	}
	available, err := footprint.MemAvailable()
	if err != nil {
		return err
	}
	limit, err := s.Node.Limits().MemoryBytes()
	if err != nil {
		return err
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
	return footprint.EstimateFor(largest, parallel, perNode, limit).Check(available)
}
