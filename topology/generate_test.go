package topology

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func generate(t *testing.T, g GraphSpec) Topology {
	t.Helper()
	topo, err := Generate(g)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", g, err)
	}
	if err := topo.Validate(); err != nil {
		t.Fatalf("generated %s does not validate: %v", topo.Name, err)
	}
	return topo
}

func spec(shape string, n int) GraphSpec {
	g := DefaultGraphSpec(shape)
	g.NodeCount = n
	return g
}

// connected tells whether the channels, ignoring direction, join every node.
func connected(t Topology) bool {
	next := map[string][]string{}
	for _, c := range t.Channels {
		next[c.From] = append(next[c.From], c.To)
		next[c.To] = append(next[c.To], c.From)
	}
	seen := map[string]bool{t.Nodes[0].Name: true}
	queue := []string{t.Nodes[0].Name}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range next[n] {
			if !seen[m] {
				seen[m] = true
				queue = append(queue, m)
			}
		}
	}
	return len(seen) == len(t.Nodes)
}

func degrees(t Topology) map[string]int {
	d := map[string]int{}
	for _, c := range t.Channels {
		d[c.From]++
		d[c.To]++
	}
	return d
}

func TestGeneratorsShapeAndEdgeCounts(t *testing.T) {
	for _, tc := range []struct {
		shape string
		n     int
		edges int
	}{
		{"chain", 25, 24},
		{"ring", 25, 25},
		{"star", 25, 24},
		{"grid", 25, 40}, // 5×5: 2·5·4
		{"grid", 7, 8},   // 3 columns: rows of 3,3,1
		{"random", 25, 37},
		{"scalefree", 25, 6 + 21*3}, // Degree 3: a 4-clique, then 3 links per node
	} {
		topo := generate(t, spec(tc.shape, tc.n))
		if len(topo.Nodes) != tc.n || len(topo.Channels) != tc.edges {
			t.Errorf("%s n=%d: %d nodes, %d channels; want %d, %d", tc.shape, tc.n, len(topo.Nodes), len(topo.Channels), tc.n, tc.edges)
		}
		if !connected(topo) {
			t.Errorf("%s n=%d is not connected", tc.shape, tc.n)
		}
	}
	if d := degrees(generate(t, spec("star", 9))); d["n1"] != 8 {
		t.Errorf("star hub degree %d, want 8", d["n1"])
	}
	for name, d := range degrees(generate(t, spec("ring", 9))) {
		if d != 2 {
			t.Errorf("ring node %s has degree %d, want 2", name, d)
		}
	}
}

func TestGenerateIsDeterministicFromTheSeed(t *testing.T) {
	for _, shape := range []string{"random", "scalefree", "testdata/describegraph.json"} {
		g := spec(shape, 8)
		g.Capacity, _ = ParseDistribution("lognormal:2000000:1")
		a, b := generate(t, g), generate(t, g)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: same seed gave two graphs", shape)
		}
		g.Seed = 2
		if c := generate(t, g); reflect.DeepEqual(a.Channels, c.Channels) && reflect.DeepEqual(a.Pairs, c.Pairs) {
			t.Errorf("%s: seeds 1 and 2 gave the same graph and pairs", shape)
		}
	}
}

func TestRandomGraphsStayConnectedOverManySeeds(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		g := spec("random", 30)
		g.Seed, g.Degree = seed, 2
		if topo := generate(t, g); !connected(topo) || len(topo.Channels) != 30 {
			t.Fatalf("seed %d: connected=%v channels=%d", seed, connected(topo), len(topo.Channels))
		}
	}
}

func TestScaleFreeHasHubs(t *testing.T) {
	g := spec("scalefree", 400)
	g.Degree = 2
	topo := generate(t, g)
	var ds []int
	for _, d := range degrees(topo) {
		ds = append(ds, d)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ds)))
	// BA: every node has at least m links, the median stays near 2m, and the
	// largest hub is far above it (a random graph of this mean degree tops out near 10).
	if ds[len(ds)-1] < 2 || ds[len(ds)/2] > 4 || ds[0] < 20 {
		t.Errorf("degrees max %d, median %d, min %d: not scale-free", ds[0], ds[len(ds)/2], ds[len(ds)-1])
	}
}

func TestRandomPairsAreAtLeastTwoHopsApart(t *testing.T) {
	g := spec("random", 25)
	g.Pairs = 15
	topo := generate(t, g)
	if len(topo.Pairs) != 15 || len(topo.Payers) != 0 {
		t.Fatalf("pairs %d payers %d; want 15 pairs, no payers", len(topo.Pairs), len(topo.Payers))
	}
	direct := map[[2]string]bool{}
	for _, c := range topo.Channels {
		direct[[2]string{c.From, c.To}], direct[[2]string{c.To, c.From}] = true, true
	}
	seen := map[Pair]bool{}
	for _, p := range topo.Pairs {
		if direct[[2]string{p.Payer, p.Payee}] || p.Payer == p.Payee || seen[p] {
			t.Errorf("pair %v: adjacent, self or repeated", p)
		}
		seen[p] = true
	}
	if _, err := spec2Pairs(); err == nil || !strings.Contains(err.Error(), "two or more hops") {
		t.Errorf("a graph without far pairs: err %v", err)
	}
}

// spec2Pairs asks for pairs on a 3-node ring, where every pair is adjacent.
func spec2Pairs() (Topology, error) { return Generate(spec("ring", 3)) }

func TestPushPercentGivesBothDirections(t *testing.T) {
	g := spec("chain", 4)
	g.PushPercent = 0
	if _, err := Generate(g); err != nil {
		t.Fatal(err) // n1→n3 still routes funder-side
	}
	topo := generate(t, spec("chain", 4))
	for _, c := range topo.Channels {
		if c.PushSat != c.Capacity()/2 {
			t.Errorf("%s→%s push %d of %d, want half", c.From, c.To, c.PushSat, c.Capacity())
		}
	}
}

func TestDistributions(t *testing.T) {
	rng := newRand(7)
	for _, tc := range []struct {
		in       string
		min, max int64
	}{
		{"fixed:1000000", 1_000_000, 1_000_000},
		{"uniform:100000:200000", 100_000, 200_000},
		{"lognormal:1000000:3", MinCapacitySat, MaxCapacitySat},
	} {
		d, err := ParseDistribution(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 200; i++ {
			if v := d.Draw(rng); v < tc.min || v > tc.max {
				t.Fatalf("%s drew %d outside [%d, %d]", tc.in, v, tc.min, tc.max)
			}
		}
	}
	for _, bad := range []string{"", "fixed", "fixed:10", "uniform:300000:200000", "normal:1:2", "lognormal:1000000:9", "fixed:x"} {
		if _, err := ParseDistribution(bad); err == nil || !strings.Contains(err.Error(), "param Capacity") {
			t.Errorf("%q: err %v, want the Capacity usage", bad, err)
		}
	}
}

func TestDescribeGraphSample(t *testing.T) {
	topo := generate(t, spec("testdata/describegraph.json", 8))
	if len(topo.Nodes) != 8 || !connected(topo) {
		t.Fatalf("%d nodes, connected=%v", len(topo.Nodes), connected(topo))
	}
	for _, c := range topo.Channels {
		if c.CapacitySat < MinCapacitySat || c.CapacitySat > MaxCapacitySat {
			t.Errorf("%s→%s capacity %d outside LND's limits", c.From, c.To, c.CapacitySat)
		}
	}
	// The fixture's largest channel (1 BTC) is scaled down to LND's maximum.
	whole := generate(t, spec("testdata/describegraph.json", 10))
	var largest int64
	for _, c := range whole.Channels {
		largest = max(largest, c.CapacitySat)
	}
	if largest != MaxCapacitySat || len(whole.Channels) != 13 {
		t.Errorf("10-node sample: largest %d, %d channels; want %d and 13 (parallel channel merged)", largest, len(whole.Channels), MaxCapacitySat)
	}
	if _, err := Generate(spec("testdata/describegraph.json", 11)); err == nil || !strings.Contains(err.Error(), "largest connected sample") {
		t.Errorf("11 of a 10-node component: err %v", err)
	}
}

func TestGeneratedTopologyRoundTripsThroughYAML(t *testing.T) {
	topo := generate(t, spec("random", 12))
	data, err := topo.YAML()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(data, "topology.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, topo) {
		t.Errorf("round trip changed the topology:\n%s", data)
	}
}

func TestTrafficInATopologyFile(t *testing.T) {
	doc := "nodes: [{name: a}, {name: b}, {name: c}, {name: d}]\n" +
		"channels: [{from: a, to: b, push_sat: 5000000}, {from: b, to: c, push_sat: 5000000}, {from: c, to: d, push_sat: 5000000}]\n" +
		"traffic: {pairs: random, count: 3, seed: 4}\n"
	topo, err := Parse([]byte(doc), "t.yml")
	if err != nil {
		t.Fatal(err)
	}
	if len(topo.Pairs) != 3 || topo.Traffic != nil {
		t.Errorf("pairs %v traffic %v", topo.Pairs, topo.Traffic)
	}
	if _, err := Parse([]byte(strings.Replace(doc, "random", "all", 1)), "t.yml"); err == nil || !strings.Contains(err.Error(), "traffic:") {
		t.Errorf("traffic pairs: all: err %v", err)
	}
}

func TestBuildReadsGraphParams(t *testing.T) {
	topo, err := BuildWith("AlicePaysBob", map[string]int{"NodeCount": 6, "Degree": 2, "Seed": 3, "Pairs": 2}, map[string]string{"Graph": "random", "Capacity": "fixed:500000"})
	if err != nil {
		t.Fatal(err)
	}
	if len(topo.Nodes) != 6 || len(topo.Channels) != 6 || len(topo.Pairs) != 2 || topo.Channels[0].CapacitySat != 500_000 {
		t.Errorf("got %s with capacity %d", topo, topo.Channels[0].CapacitySat)
	}
	if _, err := BuildWith("random", map[string]int{"NodeCount": 5, "Degree": 9}, nil); err == nil || !strings.Contains(err.Error(), "param Degree=9") {
		t.Errorf("Degree 9 on 5 nodes: err %v", err)
	}
	chain, err := Build("AlicePaysBobViaCarol", map[string]int{"CarolsCount": 3, "Pairs": 1})
	if err != nil || len(chain.Pairs) != 1 {
		t.Errorf("Pairs on a built-in: %v %v", chain.Pairs, err)
	}
}

// A graph file runs whole unless NodeCount asks for a sample, and a sample
// says so (issue 22: a 40-node file ran silently as 10 nodes).
func TestGraphFileRunsWholeUnlessSampled(t *testing.T) {
	whole, err := BuildWith("testdata/describegraph12.json", map[string]int{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Nodes) != 12 || len(whole.Channels) != 14 || !connected(whole) || whole.Note != "" {
		t.Errorf("whole file: %s; want 12 nodes, 14 channels (parallel ones merged), connected, no note", whole)
	}
	if whole.Name != "describegraph-n12-seed1" {
		t.Errorf("name %q", whole.Name)
	}
	sampled, err := BuildWith("testdata/describegraph12.json", map[string]int{"NodeCount": 8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "sampled 8 of 12 nodes of describegraph12.json"
	if len(sampled.Nodes) != 8 || !strings.Contains(sampled.Note, want) || !strings.Contains(sampled.String(), want) {
		t.Errorf("sample: %d nodes, note %q, line %q; want 8 and %q", len(sampled.Nodes), sampled.Note, sampled, want)
	}
	all, err := BuildWith("testdata/describegraph12.json", map[string]int{"NodeCount": 12}, nil)
	if err != nil || all.Note != "" || len(all.Nodes) != 12 {
		t.Errorf("NodeCount = the file's size is the whole graph: %v note %q", err, all.Note)
	}
	if _, err := BuildWith("testdata/describegraph12.json", map[string]int{"NodeCount": 13}, nil); err == nil || !strings.Contains(err.Error(), "leave NodeCount out") {
		t.Errorf("13 of 12: err %v", err)
	}
}

// Nodes without channels can neither route nor pay: left out, and counted.
func TestGraphFileLeavesOutNodesWithoutChannels(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.json")
	doc := `{"nodes": [{"pub_key": "a"}, {"pub_key": "b"}, {"pub_key": "c"}, {"pub_key": "lone"}],
	 "edges": [{"node1_pub": "a", "node2_pub": "b", "capacity": "1000000"}, {"node1_pub": "b", "node2_pub": "c", "capacity": 2000000}]}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	topo := generate(t, DefaultGraphSpec(path))
	if len(topo.Nodes) != 3 || topo.Note != "1 node(s) of g.json without channels left out" {
		t.Errorf("%d nodes, note %q", len(topo.Nodes), topo.Note)
	}
	if err := os.WriteFile(path, []byte(`{"nodes": [{"pub_key": "a"}], "edges": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(DefaultGraphSpec(path)); err == nil || !strings.Contains(err.Error(), "node1_pub") {
		t.Errorf("a file without channels: err %v", err)
	}
}
