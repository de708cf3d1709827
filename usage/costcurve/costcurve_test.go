package costcurve

import (
	"math"
	"strings"
	"testing"
)

const mib = 1 << 20

// pt is a network of n nodes: 10 s + 2 s per node to ready, btcd 160 MiB
// plus 100 MiB per node.
func pt(n int, avail int64) Point {
	return Point{AtReady: AtReady{Nodes: n, RSSBytes: int64(160+100*n) * mib, NodeRSSBytes: int64(100*n) * mib, MemAvailableBytes: avail},
		ReadySeconds: 10 + 2*float64(n), Phases: []Phase{{"chain", 1}, {"nodes", float64(n)}}}
}

func TestBuild(t *testing.T) {
	const gib = 1 << 30
	tests := []struct {
		name      string
		points    []Point
		ok        bool
		sizes     int
		maxNodes  int
		readyAt   float64 // time fit at maxNodes
		note      string
		timeSlope float64
	}{
		{"one size: no curve", []Point{pt(10, gib), pt(10, gib)}, false, 0, 0, 0, "", 0},
		{"empty", nil, false, 0, 0, 0, "", 0},
		// (20 GiB - 160 MiB) / 100 MiB = 203.2 → 203 nodes, 10 + 2·203 s.
		{"exact line", []Point{pt(10, 20*gib), pt(25, 20*gib), pt(50, 20*gib)}, true, 3, 203, 416, "", 2},
		// The largest MemAvailable counts: the machine least busy.
		{"largest MemAvailable", []Point{pt(10, 10*gib), pt(20, 20*gib)}, true, 2, 203, 416, "", 2},
		{"MemAvailable unknown", []Point{pt(10, 0), pt(20, 0)}, true, 2, 0, 0, "MemAvailable unknown", 2},
		{"no room", []Point{pt(10, 100*mib), pt(20, 100*mib)}, true, 2, 0, 0, "no room for one node", 2},
		{"no memory figures", []Point{{AtReady: AtReady{Nodes: 10, MemAvailableBytes: gib}, ReadySeconds: 30}, {AtReady: AtReady{Nodes: 20, MemAvailableBytes: gib}, ReadySeconds: 50}}, true, 2, 0, 0, "no memory figures", 2},
		{"zero-node points ignored", []Point{pt(0, gib), pt(10, gib)}, false, 0, 0, 0, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := Build(tt.points)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if len(c.Rows) != tt.sizes || c.MaxNodes != tt.maxNodes || !strings.Contains(c.Note, tt.note) {
				t.Errorf("rows %d, max %d, note %q; want %d, %d, %q", len(c.Rows), c.MaxNodes, c.Note, tt.sizes, tt.maxNodes, tt.note)
			}
			if math.Abs(c.MaxNodesReadySeconds-tt.readyAt) > 1e-6 || math.Abs(c.Time.Slope-tt.timeSlope) > 1e-9 {
				t.Errorf("ready at max %v, time slope %v; want %v, %v", c.MaxNodesReadySeconds, c.Time.Slope, tt.readyAt, tt.timeSlope)
			}
			if c.Memory.Intercept != 0 && (math.Abs(c.Memory.R2-1) > 1e-9 || math.Abs(c.Memory.Slope-100*mib) > 1e-3) {
				t.Errorf("memory fit %+v, want 100 MiB per node, R² 1", c.Memory)
			}
		})
	}
}

func TestBuildAveragesLaunches(t *testing.T) {
	a, b := pt(10, 1<<30), pt(10, 1<<30)
	a.ReadySeconds, b.ReadySeconds = 20, 40
	a.PaymentsPerSec, b.PaymentsPerSec = 10, 20
	b.Phases = append(b.Phases, Phase{"routes", 4}) // a phase only one launch reached
	c, ok := Build([]Point{a, b, pt(5, 1<<30)})
	if !ok {
		t.Fatal("no curve")
	}
	r := c.Rows[1]
	if r.Nodes != 10 || r.Networks != 2 || r.ReadySeconds != 30 || r.PaymentsPerSec != 15 || r.Seconds("routes") != 2 || r.Seconds("nodes") != 10 {
		t.Errorf("row %+v", r)
	}
	if c.Rows[0].Nodes != 5 || strings.Join(c.Phases, ",") != "chain,nodes,routes" {
		t.Errorf("rows not sorted or phases %v", c.Phases)
	}
	if r.PerNodeRSSBytes() != 100*mib || r.PerNodePeakBytes() != 0 {
		t.Errorf("per node %d, peak %d", r.PerNodeRSSBytes(), r.PerNodePeakBytes())
	}
}

func TestNoisyFitR2(t *testing.T) {
	// Memory that grows faster than linearly: R² below 1 tells the reader.
	var ps []Point
	for _, n := range []int{10, 25, 50, 100} {
		p := pt(n, 1<<34)
		p.RSSBytes = int64(n*n) * mib
		ps = append(ps, p)
	}
	c, _ := Build(ps)
	if c.Memory.R2 >= 0.99 || c.Memory.R2 <= 0.8 {
		t.Errorf("R² %v, want a visibly imperfect fit", c.Memory.R2)
	}
}
