// Package costcurve says what each added node costs this machine: per
// network size the setup phases, time to ready, memory and CPU at ready and
// payments/s, least-squares lines of time and memory against the node
// count, and the largest network the memory line fits in the memory the
// machine had available. Pure arithmetic over measured points.
package costcurve

import (
	"fmt"
	"math"
	"sort"

	"github.com/lnbench/lnbench/stats"
)

// Phase is the wall time of one setup phase.
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// AtReady is what one network cost the machine the moment it became ready
// (every payer has a route to its payees). The runner records it per
// network (record.NetworkCost) and a Point carries it as recorded.
type AtReady struct {
	Nodes int `json:"nodes"` // Lightning nodes (the chain aside)
	// RSSBytes is every actor of the network at ready (nodes and chain);
	// NodeRSSBytes the nodes alone.
	RSSBytes     int64 `json:"rss_bytes"`
	NodeRSSBytes int64 `json:"node_rss_bytes"`
	// PeakRSSBytes sums each actor's own peak until ready: an upper bound,
	// the peaks need not coincide.
	PeakRSSBytes int64 `json:"peak_rss_bytes"`
	// CPUSeconds is the CPU time of nodes, chain and harness until ready
	// (the actors all started in setup).
	CPUSeconds float64 `json:"cpu_s"`
	// MemAvailableBytes is the kernel's MemAvailable before the network started.
	MemAvailableBytes int64 `json:"mem_available_bytes"`
}

// Point is one network: its cost at ready, its setup phases and, for
// PaymentsPerSec, its measured cases.
type Point struct {
	AtReady
	Phases         []Phase `json:"phases"`
	ReadySeconds   float64 `json:"ready_s"`        // from the chain's start to ready
	PaymentsPerSec float64 `json:"payments_per_s"` // 0: nothing measured
}

// Row is the mean of the points of one node count.
type Row struct {
	Point
	Networks int `json:"networks"`
}

// PerNodeRSSBytes is the nodes' RSS at ready divided by their count.
func (r Row) PerNodeRSSBytes() int64 { return r.NodeRSSBytes / int64(max(1, r.Nodes)) }

// PerNodePeakBytes is the peak sum divided by the actors' count (nodes and chain).
func (r Row) PerNodePeakBytes() int64 { return r.PeakRSSBytes / int64(max(1, r.Nodes+1)) }

// Curve is the cost curve of one series (a node spec) of a run.
type Curve struct {
	Series string   `json:"series,omitempty"` // the node spec's label
	Rows   []Row    `json:"rows"`
	Phases []string `json:"phases"` // phase names in setup order
	// Time is ReadySeconds against Nodes; Memory is RSSBytes against Nodes.
	Time   stats.Fit `json:"time_fit"`
	Memory stats.Fit `json:"memory_fit"`
	// MemAvailableBytes is the largest MemAvailable seen before a network
	// started: the machine with the least of anything else on it.
	MemAvailableBytes int64 `json:"mem_available_bytes"`
	// MaxNodes is the largest N whose fitted memory fits MemAvailableBytes;
	// 0 when the memory line does not grow (Note says why).
	MaxNodes int `json:"max_nodes"`
	// MaxNodesReadySeconds is the time fit at MaxNodes.
	MaxNodesReadySeconds float64 `json:"max_nodes_ready_s"`
	Note                 string  `json:"note,omitempty"`
}

// MinSizes is how many distinct node counts a curve needs.
const MinSizes = 2

// Build averages the points per node count and fits the lines; ok is
// false with fewer than MinSizes distinct node counts (no curve to draw).
func Build(points []Point) (Curve, bool) {
	rows := byNodes(points)
	if len(rows) < MinSizes {
		return Curve{}, false
	}
	c := Curve{Rows: rows, Phases: phaseNames(points)}
	var n, ready, mem []float64
	for _, r := range rows {
		n = append(n, float64(r.Nodes))
		ready = append(ready, r.ReadySeconds)
		mem = append(mem, float64(r.RSSBytes))
		c.MemAvailableBytes = max(c.MemAvailableBytes, r.MemAvailableBytes)
	}
	// Two or more distinct x and finite values: the fits cannot fail.
	c.Time, _ = stats.LinearFit(n, ready)
	c.Memory, _ = stats.LinearFit(n, mem)
	c.MaxNodes, c.Note = maxNodes(c.Memory, c.MemAvailableBytes)
	if c.MaxNodes > 0 {
		c.MaxNodesReadySeconds = c.Time.Slope*float64(c.MaxNodes) + c.Time.Intercept
	}
	return c, true
}

// maxNodes solves Slope·N + Intercept ≤ available for the largest N.
func maxNodes(f stats.Fit, available int64) (int, string) {
	switch {
	case f.Slope == 0 && f.Intercept == 0:
		return 0, "no memory figures (the backend's actors were not measured): no extrapolation"
	case available <= 0:
		return 0, "MemAvailable unknown: no extrapolation"
	case f.Slope <= 0:
		return 0, "memory does not grow with N in these points: no extrapolation"
	}
	n := math.Floor((float64(available) - f.Intercept) / f.Slope)
	if n < 1 {
		return 0, fmt.Sprintf("the fit leaves no room for one node in %d MiB", available>>20)
	}
	return int(n), ""
}

// byNodes averages the points of each node count, smallest count first.
func byNodes(points []Point) []Row {
	groups := map[int][]Point{}
	for _, p := range points {
		if p.Nodes > 0 {
			groups[p.Nodes] = append(groups[p.Nodes], p)
		}
	}
	var rows []Row
	for nodes, ps := range groups {
		rows = append(rows, meanRow(nodes, ps))
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Nodes < rows[j].Nodes })
	return rows
}

// meanRow is the row of a node count: each field the mean over its networks.
func meanRow(nodes int, ps []Point) Row {
	avg := func(get func(Point) float64) float64 {
		xs := make([]float64, len(ps))
		for i, p := range ps {
			xs[i] = get(p)
		}
		return stats.Mean(xs)
	}
	avgBytes := func(get func(Point) int64) int64 { return int64(avg(func(p Point) float64 { return float64(get(p)) })) }
	r := Row{Networks: len(ps), Point: Point{AtReady: AtReady{Nodes: nodes,
		RSSBytes:          avgBytes(func(p Point) int64 { return p.RSSBytes }),
		NodeRSSBytes:      avgBytes(func(p Point) int64 { return p.NodeRSSBytes }),
		PeakRSSBytes:      avgBytes(func(p Point) int64 { return p.PeakRSSBytes }),
		CPUSeconds:        avg(func(p Point) float64 { return p.CPUSeconds }),
		MemAvailableBytes: avgBytes(func(p Point) int64 { return p.MemAvailableBytes }),
	},
		ReadySeconds:   avg(func(p Point) float64 { return p.ReadySeconds }),
		PaymentsPerSec: avg(func(p Point) float64 { return p.PaymentsPerSec }),
	}}
	for _, name := range phaseNames(ps) {
		r.Phases = append(r.Phases, Phase{Name: name, Seconds: avg(func(p Point) float64 { return phaseSeconds(p, name) })})
	}
	return r
}

// Seconds is the wall time of the named phase (0 when absent).
func (p Point) Seconds(phase string) float64 { return phaseSeconds(p, phase) }

func phaseSeconds(p Point, name string) float64 {
	for _, ph := range p.Phases {
		if ph.Name == name {
			return ph.Seconds
		}
	}
	return 0
}

// phaseNames lists phase names in first-seen order.
func phaseNames(ps []Point) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range ps {
		for _, ph := range p.Phases {
			if !seen[ph.Name] {
				seen[ph.Name] = true
				out = append(out, ph.Name)
			}
		}
	}
	return out
}
