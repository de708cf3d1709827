package topology

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// describeGraph is the part of `lncli describegraph` output the import reads.
type describeGraph struct {
	Nodes []struct {
		PubKey string `json:"pub_key"`
	} `json:"nodes"`
	Edges []struct {
		Node1    string    `json:"node1_pub"`
		Node2    string    `json:"node2_pub"`
		Capacity flexInt64 `json:"capacity"`
	} `json:"edges"`
}

// flexInt64 reads lncli's int64-as-string as well as a plain number.
type flexInt64 int64

func (f *flexInt64) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(s) >= 2 && s[0] == '"' {
		s = s[1 : len(s)-1]
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("capacity %s: not an integer", b)
	}
	*f = flexInt64(v)
	return nil
}

// graphFile is what importing a describegraph file gave: edges over node
// indices with their scaled capacities, and how much of the file it kept.
type graphFile struct {
	edges [][2]int
	caps  []int64
	// nodes ran; withChannels are the file's nodes that have a channel;
	// lone are listed nodes without one (they can neither route nor pay,
	// so they are left out).
	nodes, withChannels, lone int
}

// note says what of the file did not run: a sample, nodes without channels.
func (g graphFile) note(path string) string {
	var parts []string
	if g.nodes < g.withChannels {
		parts = append(parts, fmt.Sprintf("sampled %d of %d nodes of %s (NodeCount=%d; leave NodeCount out to run the whole graph)", g.nodes, g.withChannels, filepath.Base(path), g.nodes))
	}
	if g.lone > 0 {
		parts = append(parts, fmt.Sprintf("%d node(s) of %s without channels left out", g.lone, filepath.Base(path)))
	}
	return strings.Join(parts, "; ")
}

// readGraphFile reads a describegraph JSON. n = 0 imports every node that
// has a channel; n > 0 snowball-samples n nodes (BFS from a random start,
// neighbours in random order), so the sample is connected. It keeps every
// channel between kept nodes (the largest of parallel ones) and scales
// capacities so the largest is LND's maximum.
func readGraphFile(path string, n int, rng *rand.Rand) (graphFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return graphFile{}, fmt.Errorf("graph file: %v", err)
	}
	var g describeGraph
	if err := json.Unmarshal(data, &g); err != nil {
		return graphFile{}, fmt.Errorf("graph file %s: %v (want the JSON of lncli describegraph)", path, err)
	}
	// Channels per unordered pair, largest capacity kept.
	capacity := map[[2]string]int64{}
	neighbours := map[string][]string{}
	for _, e := range g.Edges {
		if e.Node1 == "" || e.Node2 == "" || e.Node1 == e.Node2 {
			continue
		}
		k := [2]string{min(e.Node1, e.Node2), max(e.Node1, e.Node2)}
		if _, ok := capacity[k]; !ok {
			neighbours[e.Node1] = append(neighbours[e.Node1], e.Node2)
			neighbours[e.Node2] = append(neighbours[e.Node2], e.Node1)
		}
		capacity[k] = max(capacity[k], int64(e.Capacity))
	}
	out := graphFile{withChannels: len(neighbours)}
	lone := map[string]bool{}
	for _, nd := range g.Nodes {
		if len(neighbours[nd.PubKey]) == 0 {
			lone[nd.PubKey] = true
		}
	}
	out.lone = len(lone)
	starts := make([]string, 0, len(neighbours))
	for pk := range neighbours {
		starts = append(starts, pk)
	}
	sort.Strings(starts) // map order is random; the seed alone must decide
	if len(starts) < 2 {
		return graphFile{}, fmt.Errorf("graph file %s: %d node(s) with channels; a network needs at least 2 (edges' node1_pub and node2_pub name them)", path, len(starts))
	}
	best := starts // the whole graph, in pubkey order
	if n > 0 {
		if len(starts) < n {
			return graphFile{}, fmt.Errorf("param NodeCount=%d: graph file %s has only %d nodes with channels; use at most %d, or leave NodeCount out to run the whole graph", n, path, len(starts), len(starts))
		}
		// A start in a small component gives a short sample: try a few starts.
		best = nil
		for try := 0; try < 20 && len(best) < n; try++ {
			if got := snowball(starts[rng.IntN(len(starts))], n, neighbours, rng); len(got) > len(best) {
				best = got
			}
		}
		if len(best) < n {
			return graphFile{}, fmt.Errorf("param NodeCount=%d: the largest connected sample found in %s has %d nodes; use at most %d", n, path, len(best), len(best))
		}
	}
	out.nodes = len(best)
	index := map[string]int{}
	for i, pk := range best {
		index[pk] = i
	}
	var largest int64
	for i, pk := range best {
		nb := append([]string(nil), neighbours[pk]...)
		sort.Strings(nb)
		for _, other := range nb {
			j, ok := index[other]
			if !ok || j <= i {
				continue
			}
			c := capacity[[2]string{min(pk, other), max(pk, other)}]
			out.edges = append(out.edges, [2]int{i, j})
			out.caps = append(out.caps, c)
			largest = max(largest, c)
		}
	}
	for i, c := range out.caps {
		if largest > MaxCapacitySat {
			c = int64(float64(c) * float64(MaxCapacitySat) / float64(largest))
		}
		out.caps[i] = ClampCapacity(c)
	}
	return out, nil
}

// snowball is a BFS from start visiting neighbours in random order, up to n nodes.
func snowball(start string, n int, neighbours map[string][]string, rng *rand.Rand) []string {
	seen := map[string]bool{start: true}
	order := []string{start}
	for head := 0; head < len(order) && len(order) < n; head++ {
		nb := append([]string(nil), neighbours[order[head]]...)
		sort.Strings(nb)
		rng.Shuffle(len(nb), func(i, j int) { nb[i], nb[j] = nb[j], nb[i] })
		for _, m := range nb {
			if len(order) == n {
				break
			}
			if !seen[m] {
				seen[m] = true
				order = append(order, m)
			}
		}
	}
	return order
}
