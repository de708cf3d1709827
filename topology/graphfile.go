package topology

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
)

// describeGraph is the part of `lncli describegraph` output a sample needs.
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

// sampleGraphFile reads a describegraph JSON and snowball-samples n nodes
// (BFS from a random start, neighbours in random order), so the sample is
// connected. It keeps every channel between sampled nodes (the largest of
// parallel ones) and scales capacities so the largest is LND's maximum.
// Edges come back over sample indices, with their scaled capacities.
func sampleGraphFile(path string, n int, rng *rand.Rand) ([][2]int, []int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("graph file: %v", err)
	}
	var g describeGraph
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, nil, fmt.Errorf("graph file %s: %v (want the JSON of lncli describegraph)", path, err)
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
	starts := make([]string, 0, len(neighbours))
	for pk := range neighbours {
		starts = append(starts, pk)
	}
	sort.Strings(starts) // map order is random; the seed alone must decide
	if len(starts) < n {
		return nil, nil, fmt.Errorf("param NodeCount=%d: graph file %s has only %d nodes with channels; use at most %d", n, path, len(starts), len(starts))
	}
	// A start in a small component gives a short sample: try a few starts.
	var best []string
	for try := 0; try < 20 && len(best) < n; try++ {
		if got := snowball(starts[rng.IntN(len(starts))], n, neighbours, rng); len(got) > len(best) {
			best = got
		}
	}
	if len(best) < n {
		return nil, nil, fmt.Errorf("param NodeCount=%d: the largest connected sample found in %s has %d nodes; use at most %d", n, path, len(best), len(best))
	}
	index := map[string]int{}
	for i, pk := range best {
		index[pk] = i
	}
	var edges [][2]int
	var caps []int64
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
			edges = append(edges, [2]int{i, j})
			caps = append(caps, c)
			largest = max(largest, c)
		}
	}
	for i, c := range caps {
		if largest > MaxCapacitySat {
			c = int64(float64(c) * float64(MaxCapacitySat) / float64(largest))
		}
		caps[i] = ClampCapacity(c)
	}
	return edges, caps, nil
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
