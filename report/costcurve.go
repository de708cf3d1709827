package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/lnbench/lnbench/usage/costcurve"
)

// Cost curve files in the artifacts folder (plots.R reads both).
const (
	CostCurveFile    = "costcurve.csv"
	CostCurveFitFile = "costcurve-fit.csv"
)

// costCurves builds one curve per node spec whose networks have two or
// more sizes, in the order the specs first appear.
func costCurves(r Report) []costcurve.Curve {
	var series []string
	points := map[string][]costcurve.Point{}
	for _, nc := range r.Costs {
		p := costcurve.Point{AtReady: nc.AtReady, PaymentsPerSec: paymentsPerSec(r, nc.Cases)}
		for _, s := range r.Setup {
			if s.Network == nc.Network {
				p.Phases = append(p.Phases, costcurve.Phase{Name: s.Phase, Seconds: s.Seconds})
				p.ReadySeconds += s.Seconds
			}
		}
		label := nodeLabelOf(r, nil)
		if len(nc.Cases) > 0 {
			label = nodeLabelOf(r, caseParams(nc.Cases[0]))
		}
		if _, ok := points[label]; !ok {
			series = append(series, label)
		}
		points[label] = append(points[label], p)
	}
	var out []costcurve.Curve
	for _, label := range series {
		if c, ok := costcurve.Build(points[label]); ok {
			c.Series = label
			out = append(out, c)
		}
	}
	return out
}

// paymentsPerSec is the mean payments/s of the network's measured cases.
func paymentsPerSec(r Report, cases []string) float64 {
	sum, n := 0.0, 0
	for _, c := range r.Cases {
		if slices.Contains(cases, c.ID) {
			sum += c.PaymentsPerSec
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func mibOf(b int64) string { return fmt.Sprintf("%.0f", float64(b)/(1<<20)) }

// CostCurveTable is one row per node count.
func CostCurveTable(c costcurve.Curve) Table {
	t := Table{Header: []string{"Nodes"}}
	for _, p := range c.Phases {
		t.Header = append(t.Header, p+" (s)")
	}
	t.Header = append(t.Header, "Ready (s)", "RSS (MiB)", "RSS/node (MiB)", "Peak/actor (MiB)", "CPU (s)", "Payments/s")
	for _, r := range c.Rows {
		row := []string{strconv.Itoa(r.Nodes)}
		for _, p := range c.Phases {
			row = append(row, fmt.Sprintf("%.1f", r.Seconds(p)))
		}
		row = append(row, fmt.Sprintf("%.1f", r.ReadySeconds), mibOf(r.RSSBytes), mibOf(r.PerNodeRSSBytes()), mibOf(r.PerNodePeakBytes()),
			fmt.Sprintf("%.1f", r.CPUSeconds), fmt.Sprintf("%.2f", r.PaymentsPerSec))
		t.Rows = append(t.Rows, row)
	}
	return t
}

// CostCurveLines state the fits and the extrapolation in words.
func CostCurveLines(c costcurve.Curve) []string {
	lines := []string{
		fmt.Sprintf("Time to ready ≈ %.1f s + %.2f s × N (R² %.3f, %d sizes)", c.Time.Intercept, c.Time.Slope, c.Time.R2, c.Time.N),
		fmt.Sprintf("RSS at ready ≈ %s MiB + %s MiB × N (R² %.3f)", mibOf(int64(c.Memory.Intercept)), fmt.Sprintf("%.1f", c.Memory.Slope/(1<<20)), c.Memory.R2),
	}
	if c.MaxNodes > 0 {
		lines = append(lines, fmt.Sprintf("Largest N this machine holds (memory fit against MemAvailable %.1f GiB): ≈ %d nodes; the time fit predicts %.0f s to ready there",
			float64(c.MemAvailableBytes)/(1<<30), c.MaxNodes, c.MaxNodesReadySeconds))
	} else {
		lines = append(lines, "Largest N: "+c.Note)
	}
	return lines
}

// costSection is the cost curve when networks of several sizes ran, else
// each network's cost at ready.
func costSection(r Report) Section {
	if len(r.CostCurves) == 0 {
		return networkCostsSection(r)
	}
	s := Section{Title: "Cost curve", Blocks: []Block{{Text: "RSS: every actor (nodes and btcd) at ready; Peak/actor: each actor's own peak until ready, summed, over nodes + 1. CPU: nodes, btcd and harness until ready."}}}
	for _, c := range r.CostCurves {
		if len(r.CostCurves) > 1 {
			s.Blocks = append(s.Blocks, Block{Heading: "Node " + c.Series})
		}
		s.Blocks = append(s.Blocks, tableBlock(CostCurveTable(c)), Block{Bullets: CostCurveLines(c)})
	}
	return s
}

// CostCurveRowsCSV writes one row per node spec and node count, seconds
// and MiB; phase columns are the union of the curves' phases.
func CostCurveRowsCSV(w io.Writer, curves []costcurve.Curve) error {
	cw := csv.NewWriter(w)
	var phases []string
	for _, c := range curves {
		for _, p := range c.Phases {
			if !slices.Contains(phases, p) {
				phases = append(phases, p)
			}
		}
	}
	head := []string{"Node", "Nodes", "Networks"}
	for _, p := range phases {
		head = append(head, p+"_s")
	}
	head = append(head, "Ready_s", "RSS_MiB", "NodeRSS_MiB", "RSSPerNode_MiB", "PeakRSS_MiB", "PeakPerActor_MiB", "CPU_s", "PaymentsPerSec", "MemAvailable_MiB")
	if err := cw.Write(head); err != nil {
		return err
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	m := func(b int64) string { return g(float64(b) / (1 << 20)) }
	for _, c := range curves {
		for _, r := range c.Rows {
			row := []string{c.Series, strconv.Itoa(r.Nodes), strconv.Itoa(r.Networks)}
			for _, p := range phases {
				row = append(row, g(r.Seconds(p)))
			}
			row = append(row, g(r.ReadySeconds), m(r.RSSBytes), m(r.NodeRSSBytes), m(r.PerNodeRSSBytes()), m(r.PeakRSSBytes), m(r.PerNodePeakBytes()),
				g(r.CPUSeconds), g(r.PaymentsPerSec), m(r.MemAvailableBytes))
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// CostCurveFitCSV writes each node spec's two fits: y = Slope·Nodes +
// Intercept (time in seconds, memory in MiB), with the extrapolated largest N.
func CostCurveFitCSV(w io.Writer, curves []costcurve.Curve) error {
	cw := csv.NewWriter(w)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	rows := [][]string{{"Node", "Quantity", "Unit", "Slope", "Intercept", "R2", "MaxNodes", "MemAvailable_MiB", "MaxNodesReady_s"}}
	for _, c := range curves {
		tail := []string{strconv.Itoa(c.MaxNodes), g(float64(c.MemAvailableBytes) / (1 << 20)), g(c.MaxNodesReadySeconds)}
		rows = append(rows,
			append([]string{c.Series, "Ready", "s", g(c.Time.Slope), g(c.Time.Intercept), g(c.Time.R2)}, tail...),
			append([]string{c.Series, "RSS", "MiB", g(c.Memory.Slope / (1 << 20)), g(c.Memory.Intercept / (1 << 20)), g(c.Memory.R2)}, tail...))
	}
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	return cw.Error()
}

// networkCostsSection lists each network's cost at ready when there is no
// curve to draw (one size per node spec), e.g. two footprints side by side.
func networkCostsSection(r Report) Section {
	s := Section{Title: "Network cost at ready"}
	t := Table{Header: []string{"Network", "Nodes", "Ready (s)", "RSS (MiB)", "RSS/node (MiB)", "Peak/actor (MiB)", "CPU (s)"}}
	for _, nc := range r.Costs {
		if nc.RSSBytes == 0 {
			continue // not measured
		}
		ready := 0.0
		for _, s := range r.Setup {
			if s.Network == nc.Network {
				ready += s.Seconds
			}
		}
		t.Rows = append(t.Rows, []string{nc.Network, strconv.Itoa(nc.Nodes), fmt.Sprintf("%.1f", ready), mibOf(nc.RSSBytes),
			mibOf(nc.NodeRSSBytes / int64(max(1, nc.Nodes))), mibOf(nc.PeakRSSBytes / int64(nc.Nodes+1)), fmt.Sprintf("%.1f", nc.CPUSeconds)})
	}
	if len(t.Rows) > 0 {
		s.Blocks = []Block{tableBlock(t)}
	}
	return s
}
