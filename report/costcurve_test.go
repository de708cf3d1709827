package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/internal/envinfo"
	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage/costcurve"
)

var scaleSizes = []int{10, 25, 50}

// fixtureScaleRecords: one case per network size, 2 iterations of 4
// payments; bigger networks pay slower (more hops).
func fixtureScaleRecords() []result.Record {
	var recs []result.Record
	for ci, n := range scaleSizes {
		id := "NodeCount=" + strconv.Itoa(n) + "/TotalPayments=4"
		for i := range 2 {
			start := t0.Add(time.Duration(ci)*100*time.Second + time.Duration(i)*2*time.Second)
			for j := range 4 {
				lat := time.Duration(100+40*ci+10*j) * time.Millisecond
				recs = append(recs, result.Record{Case: id, Phase: result.Measure, Iteration: i, Worker: j, Seq: j, Payer: "n0", Payee: "n" + strconv.Itoa(j+1),
					Mode: "invoice", Start: start, End: start.Add(lat), PaymentNs: int64(lat), Status: result.Succeeded, Hops: 2 + ci})
			}
		}
	}
	return recs
}

// fixtureScaleReport is a run of three network sizes with their costs:
// ready in 20 s + 2 s per node, 160 MiB + 100 MiB per node at ready.
func fixtureScaleReport() Report {
	s := scenario.Scenario{Name: "Scale", Method: "RunGenerated", Topology: "random",
		Params: []scenario.Param{{Name: "NodeCount", Values: []string{"10", "25", "50"}}, {Name: "TotalPayments", Values: []string{"4"}}},
		Job:    scenario.Job{LaunchCount: 1, WarmupCount: 0, IterationCount: 2, InvocationCount: 1},
		Node:   scenario.Node{Implementation: "lnd", Version: "v0.21.0-beta", DBBackend: "bbolt"}}
	r := Report{Manifest: record.Manifest{RunID: "20260102T030405Z-Scale", Started: t0, Finished: t0.Add(10 * time.Minute), Scenario: s, Backend: "local",
		Env:               envinfo.Env{OS: "Debian GNU/Linux 12 (bookworm)", Kernel: "6.1.0", CPU: "AMD EPYC", Cores: 2, MemoryMiB: 24576, GoVersion: "go1.26.8"},
		Nodes:             []record.NodeInfo{{Implementation: "lnd", Version: "v0.21.0-beta", Flags: []string{"--bitcoin.simnet"}}},
		HarnessCPUSeconds: 30, WallSeconds: 600}}
	const mib = 1 << 20
	for _, n := range scaleSizes {
		net := "launch1/NodeCount=" + strconv.Itoa(n) + "/TotalPayments=4"
		nodes := 2 * float64(n)
		r.Setup = append(r.Setup, record.Setup{Network: net, Phase: "chain", Seconds: 2}, record.Setup{Network: net, Phase: "nodes", Seconds: 10 + nodes/2},
			record.Setup{Network: net, Phase: "fund", Seconds: 3}, record.Setup{Network: net, Phase: "channels", Seconds: 5 + nodes/4},
			record.Setup{Network: net, Phase: "routes", Seconds: nodes / 4})
		r.Costs = append(r.Costs, record.NetworkCost{Network: net, Cases: []string{"NodeCount=" + strconv.Itoa(n) + "/TotalPayments=4"},
			AtReady: costcurve.AtReady{Nodes: n, RSSBytes: int64(160+100*n) * mib, NodeRSSBytes: int64(100*n) * mib, PeakRSSBytes: int64(160+300*n) * mib,
				CPUSeconds: 4 * float64(n), MemAvailableBytes: 22 << 30},
			HarnessCPUSeconds: float64(n) / 5, Source: "proc"})
	}
	// On the smallest network two of ten nodes forwarded; on the next, none.
	for i := 1; i <= 10; i++ {
		r.Forwards = append(r.Forwards, record.Forward{Network: "launch1/NodeCount=10/TotalPayments=4", Node: fmt.Sprintf("n%02d", i), Count: map[int]int{3: 8, 7: 4}[i]})
	}
	for i := 1; i <= 25; i++ {
		r.Forwards = append(r.Forwards, record.Forward{Network: "launch1/NodeCount=25/TotalPayments=4", Node: fmt.Sprintf("n%02d", i)})
	}
	Summarize(&r, fixtureScaleRecords())
	return r
}

func TestCostCurveGolden(t *testing.T) {
	r := fixtureScaleReport()
	if len(r.CostCurves) != 1 {
		t.Fatal("three network sizes: want a cost curve")
	}
	for _, f := range []struct {
		name string
		fn   func(*bytes.Buffer) error
		want []string
	}{
		{"summary-scale.md.golden", func(b *bytes.Buffer) error { return Markdown(b, r) },
			[]string{"## Cost curve", "| Nodes | chain (s) | nodes (s) | fund (s) | channels (s) | routes (s) | Ready (s) |",
				"| 50 | 2.0 | 60.0 | 3.0 | 30.0 | 25.0 | 120.0 | 5160 | 100 |",
				"Time to ready ≈ 20.0 s + 2.00 s × N (R² 1.000, 3 sizes)", "RSS at ready ≈ 160 MiB + 100.0 MiB × N (R² 1.000)",
				// (22 GiB - 160 MiB) / 100 MiB = 223.68
				"against MemAvailable 22.0 GiB): ≈ 223 nodes; the time fit predicts 466 s to ready there",
				"| launch1/NodeCount=10/TotalPayments=4 | n03 | 8 |\n| launch1/NodeCount=10/TotalPayments=4 | n07 | 4 |\n| launch1/NodeCount=10/TotalPayments=4 | 8 other node(s) | 0 |\n| launch1/NodeCount=25/TotalPayments=4 | all 25 node(s) | 0 |",
				"| Case | Hops | Succeeded | Share | Payments/s | p50 (ms) | p90 (ms) | p99 (ms) |",
				"| NodeCount=10/TotalPayments=4 | 2 | 8 | 100% | 30.77 | 115.0 | 130.0 | 130.0 |"}},
		{"costcurve.csv.golden", func(b *bytes.Buffer) error { return CostCurveRowsCSV(b, r.CostCurves) },
			[]string{"Node,Nodes,Networks,chain_s,nodes_s,fund_s,channels_s,routes_s,Ready_s,RSS_MiB,", "\nv0.21.0-beta,25,1,2,35,3,17.5,12.5,70,2660,2500,100,"}},
		{"costcurve-fit.csv.golden", func(b *bytes.Buffer) error { return CostCurveFitCSV(b, r.CostCurves) },
			[]string{"v0.21.0-beta,Ready,s,2,20,1,223,22528,466", "v0.21.0-beta,RSS,MiB,100,160,1,223,"}},
	} {
		var b bytes.Buffer
		if err := f.fn(&b); err != nil {
			t.Fatal(err)
		}
		testsupport.Golden(t, "testdata/"+f.name, b.Bytes())
		for _, w := range f.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s lacks %q", f.name, w)
			}
		}
	}
	// Payments/s per size come from the network's own case.
	if rows := r.CostCurves[0].Rows; rows[0].PaymentsPerSec <= rows[2].PaymentsPerSec {
		t.Errorf("payments/s by size: %v", rows)
	}
}

func TestNoCostCurveForOneSize(t *testing.T) {
	r := fixtureReport()
	r.Costs = []record.NetworkCost{{Network: "launch1", AtReady: costcurve.AtReady{Nodes: 2, RSSBytes: 1 << 28, PeakRSSBytes: 1 << 28}}}
	Summarize(&r, fixtureRecords())
	var b bytes.Buffer
	if err := Markdown(&b, r); err != nil {
		t.Fatal(err)
	}
	if len(r.CostCurves) != 0 || strings.Contains(b.String(), "Cost curve") {
		t.Error("one network size: no cost curve expected")
	}
	// The network's cost is still listed: RSS per node, peak per actor.
	if !strings.Contains(b.String(), "## Network cost at ready") || !strings.Contains(b.String(), "| launch1 | 2 | 5.2 | 256 | 0 | 85 | 0.0 |") {
		t.Errorf("markdown lacks the network cost:\n%s", b.String())
	}
	// Writing the reports removes a stale curve of an earlier analysis.
	dir := t.TempDir()
	stale := filepath.Join(dir, CostCurveFile)
	if err := os.WriteFile(stale, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runExporters(exportRun{dir: dir, rep: r}, exportersOf(CostCurveFile, CostCurveFitFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("stale costcurve.csv left behind")
	}
}

// TestCostCurvePlot draws plot-cost-curve.png with the real R.
func TestCostCurvePlot(t *testing.T) {
	needR(t)
	dir := t.TempDir()
	r := fixtureScaleReport()
	writeCSVs(t, dir, r, fixtureScaleRecords())
	if err := runExporters(exportRun{dir: dir, rep: r}, exportersOf(CostCurveFile, CostCurveFitFile)); err != nil {
		t.Fatal(err)
	}
	got, err := RunR(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, "plot-cost-curve.png") {
		t.Fatalf("plots = %v, want plot-cost-curve.png", got)
	}
	png, err := os.ReadFile(filepath.Join(dir, "plot-cost-curve.png"))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("plot-cost-curve.png is not a PNG (%v)", err)
	}
}

// TestCostCurvePerNodeSpec: a run of two node specs gets one curve each;
// a spec with one network size gets none.
func TestCostCurvePerNodeSpec(t *testing.T) {
	const mib = 1 << 20
	r := Report{}
	add := func(spec string, n, perNode int) {
		net := "launch1/Node=" + spec + "/NodeCount=" + strconv.Itoa(n)
		r.Setup = append(r.Setup, record.Setup{Network: net, Phase: "nodes", Seconds: float64(n)})
		r.Costs = append(r.Costs, record.NetworkCost{Network: net, Cases: []string{"Node=" + spec + "/NodeCount=" + strconv.Itoa(n)},
			AtReady: costcurve.AtReady{Nodes: n, RSSBytes: int64(160+perNode*n) * mib, NodeRSSBytes: int64(perNode*n) * mib, MemAvailableBytes: 20 << 30}})
	}
	add("default", 10, 100)
	add("small", 10, 60)
	add("default", 20, 100)
	add("small", 20, 60)
	add("lone", 10, 60)
	curves := costCurves(r)
	if len(curves) != 2 || curves[0].Series != "default" || curves[1].Series != "small" {
		t.Fatalf("curves %+v", curves)
	}
	if curves[0].Memory.Slope != 100*mib || curves[1].Memory.Slope != 60*mib || curves[1].MaxNodes <= curves[0].MaxNodes {
		t.Errorf("fits %+v / %+v", curves[0].Memory, curves[1].Memory)
	}
	r.CostCurves = curves
	var b bytes.Buffer
	if err := Markdown(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "### Node small") {
		t.Errorf("markdown without a subsection per spec:\n%s", b.String())
	}
	needR(t)
	dir := t.TempDir()
	if err := runExporters(exportRun{dir: dir, rep: r}, exportersOf(CostCurveFile, CostCurveFitFile)); err != nil {
		t.Fatal(err)
	}
	if err := WriteRScript(dir); err != nil {
		t.Fatal(err)
	}
	// plots.R stops after the cost curve: this run has no summary.csv.
	got, _ := RunR(context.Background(), dir)
	if !slices.Contains(got, "plot-cost-curve.png") {
		t.Errorf("plots = %v", got)
	}
}

// exportersOf are the exporters that write the named files.
func exportersOf(names ...string) []exporter {
	var out []exporter
	for _, x := range exporters {
		if slices.ContainsFunc(x.files, func(f string) bool { return slices.Contains(names, f) }) {
			out = append(out, x)
		}
	}
	return out
}
