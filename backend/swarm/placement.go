package swarm

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/topology"
)

// Place assigns every service of a topology to a swarm node: a node that
// pins itself (topology `placement:`, a hostname or a node label
// "key=value") goes there, the others are spread round robin over the
// Ready nodes in hostname order, btcd first. A label matching several
// nodes spreads its nodes over those. Errors name the node and the fix.
func Place(topo topology.Topology, c Cluster) (map[string]string, error) {
	out := map[string]string{composefile.ChainService: c.Nodes[0]}
	next := 1
	byLabel := map[string]int{}
	for _, n := range topo.Nodes {
		pin := strings.TrimSpace(n.Placement)
		if pin == "" {
			out[n.Name] = c.Nodes[next%len(c.Nodes)]
			next++
			continue
		}
		if k, v, ok := strings.Cut(pin, "="); ok {
			var match []string
			for _, h := range c.Nodes {
				if c.NodeLabels[h][k] == v {
					match = append(match, h)
				}
			}
			if len(match) == 0 {
				return nil, fmt.Errorf("node %s: placement %q: no Ready swarm node has the label %s=%s (docker node update --label-add %s=%s NODE; nodes: %s)", n.Name, pin, k, v, k, v, strings.Join(c.Nodes, ", "))
			}
			sort.Strings(match)
			out[n.Name] = match[byLabel[pin]%len(match)]
			byLabel[pin]++
			continue
		}
		found := false
		for _, h := range c.Nodes {
			if h == pin {
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("node %s: placement %q is neither a Ready swarm node (%s) nor a node label key=value", n.Name, pin, strings.Join(c.Nodes, ", "))
		}
		out[n.Name] = pin
	}
	return out, nil
}
