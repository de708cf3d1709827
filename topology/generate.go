package topology

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Shapes are the graph generators, each deterministic from a seed.
var Shapes = []string{"chain", "ring", "star", "grid", "random", "scalefree"}

// GraphParams are the params a generated graph reads (Pairs and Seed also
// draw traffic on any topology).
var GraphParams = []string{"NodeCount", "Seed", "Degree", "Pairs", "PushPercent"}

// DefaultPairs bounds the random pairs a generated graph draws unless
// Pairs says otherwise: enough to spread traffic, few warm-up payments.
const DefaultPairs = 20

// MaxNodes bounds a generated graph; the resource guard decides what fits
// this machine, this only catches typos.
const MaxNodes = 100_000

// GraphSpec is what a generator needs.
type GraphSpec struct {
	Shape string // one of Shapes, or a describegraph .json file
	// NodeCount is a shape's size; on a graph file it asks for a sample
	// (0 runs the whole graph).
	NodeCount int
	Seed      uint64
	// Degree is the mean degree of random and the edges per new node of
	// scalefree (Barabási–Albert m).
	Degree   int
	Capacity Distribution
	// PushPercent of each capacity is pushed to the far side, so payments
	// can flow both ways (0 = all liquidity on the funder's side).
	PushPercent int
	// Pairs is the number of random payer/payee pairs drawn as traffic.
	Pairs int
}

// IsShape tells whether name is a generator.
func IsShape(name string) bool {
	for _, s := range Shapes {
		if s == name {
			return true
		}
	}
	return false
}

// IsGraphFile tells whether name is an lncli describegraph JSON file.
func IsGraphFile(name string) bool { return strings.HasSuffix(name, ".json") }

// IsGenerated tells whether a topology name is built by a generator.
func IsGenerated(name string) bool { return IsShape(name) || IsGraphFile(name) }

// DefaultGraphSpec fills what params leave out.
// A graph file runs whole unless NodeCount asks for a sample.
func DefaultGraphSpec(shape string) GraphSpec {
	n := 10
	if IsGraphFile(shape) {
		n = 0
	}
	return GraphSpec{Shape: shape, NodeCount: n, Seed: 1, Degree: 3, Capacity: DefaultDistribution, PushPercent: 50}
}

// Validate names the param and the fix.
func (g GraphSpec) Validate() error {
	min := map[string]int{"chain": 2, "ring": 3, "star": 3, "grid": 4, "random": 3, "scalefree": 3}[g.Shape]
	if IsGraphFile(g.Shape) {
		min = 2
	}
	if whole := IsGraphFile(g.Shape) && g.NodeCount == 0; !whole && (g.NodeCount < min || g.NodeCount > MaxNodes) {
		return fmt.Errorf("param NodeCount=%d: %s needs %d..%d nodes", g.NodeCount, g.Shape, min, MaxNodes)
	}
	switch g.Shape {
	case "random":
		if g.Degree < 2 || g.Degree >= g.NodeCount {
			return fmt.Errorf("param Degree=%d: random needs a mean degree of 2..%d (NodeCount-1)", g.Degree, g.NodeCount-1)
		}
	case "scalefree":
		if g.Degree < 1 || g.Degree >= g.NodeCount {
			return fmt.Errorf("param Degree=%d: scalefree attaches each node with Degree edges; use 1..%d", g.Degree, g.NodeCount-1)
		}
	}
	if g.PushPercent < 0 || g.PushPercent > 99 {
		return fmt.Errorf("param PushPercent=%d: use 0..99 (percent of each capacity pushed to the far side)", g.PushPercent)
	}
	return nil
}

// Generate builds the graph: nodes n01…, channels with capacities drawn
// from the spec's distribution, and Pairs random payer/payee pairs.
func Generate(g GraphSpec) (Topology, error) {
	if err := g.Validate(); err != nil {
		return Topology{}, err
	}
	rng := newRand(g.Seed)
	var edges [][2]int
	var sized []int64 // capacities from an imported graph, scaled
	var note string
	n := g.NodeCount
	switch g.Shape {
	case "chain":
		edges = chainEdges(n)
	case "ring":
		edges = append(chainEdges(n), [2]int{n - 1, 0})
	case "star":
		for i := 1; i < n; i++ {
			edges = append(edges, [2]int{i, 0}) // leaves fund: funding spreads over wallets
		}
	case "grid":
		edges = gridEdges(n)
	case "random":
		edges = randomEdges(rng, n, g.Degree)
	case "scalefree":
		edges = scaleFreeEdges(rng, n, g.Degree)
	default:
		file, err := readGraphFile(g.Shape, n, rng)
		if err != nil {
			return Topology{}, err
		}
		edges, sized, n, note = file.edges, file.caps, file.nodes, file.note(g.Shape)
		g.NodeCount = n // the name says how many ran
	}
	t := Topology{Name: graphName(g), Note: note}
	width := len(fmt.Sprint(n))
	name := func(i int) string { return fmt.Sprintf("n%0*d", width, i+1) }
	for i := 0; i < n; i++ {
		t.Nodes = append(t.Nodes, Node{Name: name(i)})
	}
	for i, e := range edges {
		capacity := g.Capacity.Draw(rng)
		if sized != nil {
			capacity = sized[i]
		}
		t.Channels = append(t.Channels, Channel{From: name(e[0]), To: name(e[1]), CapacitySat: capacity, PushSat: capacity * int64(g.PushPercent) / 100})
	}
	pairs := g.Pairs
	if pairs == 0 {
		pairs = min(n, DefaultPairs)
	}
	return t.WithRandomPairs(pairs, g.Seed)
}

func graphName(g GraphSpec) string {
	shape := g.Shape
	if IsGraphFile(shape) {
		shape = "describegraph"
	}
	return fmt.Sprintf("%s-n%d-seed%d", shape, g.NodeCount, g.Seed)
}

// newRand is the one source of randomness: PCG is specified, so a seed
// gives the same graph on every Go version and machine.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x6c6e62656e6368)) }

func chainEdges(n int) [][2]int {
	var out [][2]int
	for i := 0; i+1 < n; i++ {
		out = append(out, [2]int{i, i + 1})
	}
	return out
}

// gridEdges lays nodes row by row on a near-square grid; each links right
// and down. A short last row still hangs off the row above.
func gridEdges(n int) [][2]int {
	cols := int(math.Ceil(math.Sqrt(float64(n))))
	var out [][2]int
	for i := 0; i < n; i++ {
		if (i+1)%cols != 0 && i+1 < n {
			out = append(out, [2]int{i, i + 1})
		}
		if i+cols < n {
			out = append(out, [2]int{i, i + cols})
		}
	}
	return out
}

// randomEdges is a random spanning tree (connected by construction) plus
// random extra edges up to a mean degree, no duplicates.
func randomEdges(rng *rand.Rand, n, degree int) [][2]int {
	order := rng.Perm(n)
	have := map[[2]int]bool{}
	var out [][2]int
	add := func(a, b int) bool {
		k := [2]int{min(a, b), max(a, b)}
		if a == b || have[k] {
			return false
		}
		have[k] = true
		out = append(out, [2]int{a, b})
		return true
	}
	for i := 1; i < n; i++ {
		add(order[i], order[rng.IntN(i)])
	}
	want := min(n*degree/2, n*(n-1)/2)
	for len(out) < want {
		add(rng.IntN(n), rng.IntN(n))
	}
	return out
}

// scaleFreeEdges is Barabási–Albert: a clique of m+1 nodes, then each new
// node links to m distinct nodes chosen with probability ∝ degree.
func scaleFreeEdges(rng *rand.Rand, n, m int) [][2]int {
	var out [][2]int
	var ends []int // every edge end once: uniform draws are degree-weighted
	for i := 0; i <= m; i++ {
		for j := 0; j < i; j++ {
			out = append(out, [2]int{i, j})
			ends = append(ends, i, j)
		}
	}
	for v := m + 1; v < n; v++ {
		chosen := map[int]bool{}
		var targets []int
		for len(targets) < m {
			u := ends[rng.IntN(len(ends))]
			if !chosen[u] {
				chosen[u] = true
				targets = append(targets, u)
			}
		}
		for _, u := range targets {
			out = append(out, [2]int{v, u})
			ends = append(ends, v, u)
		}
	}
	return out
}

// WithRandomPairs draws count payer/payee pairs, deterministic from seed,
// each without a direct channel but with a liquidity path: every payment
// routes over at least two hops. Distinct pairs are preferred; a graph with
// fewer reuses them in drawn order. It refuses a graph with no such pair.
func (t Topology) WithRandomPairs(count int, seed uint64) (Topology, error) {
	if count < 1 {
		return t, fmt.Errorf("param Pairs=%d: draw at least 1 pair", count)
	}
	adjacent := map[[2]string]bool{}
	for _, c := range t.Channels {
		adjacent[[2]string{c.From, c.To}], adjacent[[2]string{c.To, c.From}] = true, true
	}
	rng := newRand(seed ^ 0x7061697273) // its own stream: pairs do not shift with the graph's draws
	far := map[string][]string{}        // payer → payees two or more hops away, cached
	taken := map[Pair]bool{}
	out := t
	out.Pairs, out.Payers, out.Payee = nil, nil, ""
	for attempt := 0; len(out.Pairs) < count && attempt < 20*count+100; attempt++ {
		a := t.Nodes[rng.IntN(len(t.Nodes))].Name
		if _, ok := far[a]; !ok {
			reach := t.reachable(a)
			for _, nd := range t.Nodes {
				if b := nd.Name; b != a && !adjacent[[2]string{a, b}] && reach[b] {
					far[a] = append(far[a], b)
				}
			}
			far[a] = append(far[a], "") // marks "computed" even when empty
		}
		options := far[a][:len(far[a])-1]
		if len(options) == 0 {
			continue
		}
		p := Pair{Payer: a, Payee: options[rng.IntN(len(options))]}
		if !taken[p] {
			taken[p] = true
			out.Pairs = append(out.Pairs, p)
		}
	}
	if len(out.Pairs) == 0 {
		return t, fmt.Errorf("topology %s: no two nodes are two or more hops apart with liquidity between them; use more nodes or another shape", t.Name)
	}
	for i := 0; len(out.Pairs) < count; i++ {
		out.Pairs = append(out.Pairs, out.Pairs[i])
	}
	return out, nil
}
