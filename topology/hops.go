package topology

// Hops is the number of channels on the shortest path from one node to
// another, whatever the channels' directions (either side can pay through
// a channel with balance on its side); 0 when no path joins them.
func (t Topology) Hops(from, to string) int {
	adjacent := map[string][]string{}
	for _, c := range t.Channels {
		adjacent[c.From] = append(adjacent[c.From], c.To)
		adjacent[c.To] = append(adjacent[c.To], c.From)
	}
	dist := map[string]int{from: 0}
	queue := []string{from}
	for len(queue) > 0 {
		at := queue[0]
		queue = queue[1:]
		if at == to {
			return dist[at]
		}
		for _, next := range adjacent[at] {
			if _, seen := dist[next]; !seen {
				dist[next] = dist[at] + 1
				queue = append(queue, next)
			}
		}
	}
	return 0
}
