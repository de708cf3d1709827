package report

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/internal/envinfo"
	"github.com/lnbench/lnbench/internal/jsonl"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/chanstate"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage"
)

// sweepFixture is AlicePaysBob at Concurrency=5 and 40 on one channel:
// 100 payments an iteration, throughput +4% while p50 grows ×7.6, both
// nodes at a fifth of a core, alice's channel 2 updates per payment.
func sweepFixture() (Report, []result.Record, []usage.Sample, []chanstate.Reading) {
	s := scenario.Scenario{Name: "AlicePaysBob", Method: "RunAlicePaysBob", Topology: "AlicePaysBob",
		Params: []scenario.Param{{Name: "Concurrency", Values: []string{"5", "40"}}, {Name: "TotalPayments", Values: []string{"100"}}},
		Job:    scenario.Job{LaunchCount: 1, IterationCount: 1, InvocationCount: 1},
		Node:   scenario.Node{Implementation: "lnd", Version: "v0.21.0-beta", DBBackend: "bbolt"}}
	r := Report{Manifest: record.Manifest{RunID: "sweep", Started: t0, Finished: t0.Add(time.Minute), Scenario: s, Backend: "local",
		Env: envinfo.Env{Cores: 2}, Nodes: []record.NodeInfo{{Implementation: "lnd", Version: "v0.21.0-beta"}}}}
	var recs []result.Record
	var samples []usage.Sample
	var readings []chanstate.Reading
	for ci, cs := range []struct {
		id       string
		dur, lat time.Duration
	}{{"Concurrency=5/TotalPayments=100", 5000 * time.Millisecond, 250 * time.Millisecond},
		{"Concurrency=40/TotalPayments=100", 4800 * time.Millisecond, 1900 * time.Millisecond}} {
		start := t0.Add(time.Duration(ci) * 20 * time.Second)
		for j := range 100 {
			st := start.Add((cs.dur - cs.lat) * time.Duration(j) / 99)
			recs = append(recs, result.Record{Case: cs.id, Phase: result.Measure, Seq: j, Payer: "alice", Payee: "bob", Mode: "invoice",
				Start: st, End: st.Add(cs.lat), PaymentNs: int64(cs.lat), Status: result.Succeeded, Hops: 1})
		}
		for k := 0; k <= 5; k++ {
			at := start.Add(time.Duration(k) * cs.dur / 5)
			for _, a := range []string{"alice", "bob"} {
				samples = append(samples, usage.Sample{Time: at, Network: "n", Case: cs.id, Phase: result.Measure, Actor: a, Role: usage.RoleNode,
					Source: usage.SourceProc, CPUUserSeconds: 0.2 * at.Sub(t0).Seconds()})
			}
		}
		for _, p := range []struct {
			point string
			at    time.Time
			upd   uint64
		}{{chanstate.Start, start, uint64(400 * ci)}, {chanstate.End, start.Add(cs.dur), uint64(400*ci + 200)}} {
			readings = append(readings, chanstate.Reading{Time: p.at, Network: "n", Case: cs.id, Phase: result.Measure, Point: p.point, Node: "alice",
				Channels: []chanstate.Channel{{Point: "tx:0", Peer: "bob", Initiator: true, Updates: p.upd, Pending: 3, MaxAccepted: 483}}})
		}
	}
	Summarize(&r, recs)
	return r, recs, samples, readings
}

// TestBoundNamedEverywhere: the sweep's verdict names the alice–bob
// channel in summary.json, markdown, text and HTML, recomputed from the
// artifacts folder's streams.
func TestBoundNamedEverywhere(t *testing.T) {
	rep, recs, samples, readings := sweepFixture()
	dir := t.TempDir()
	if err := writeFile(filepath.Join(dir, "summary.json"), func(w io.Writer) error { return JSON(w, rep) }); err != nil {
		t.Fatal(err)
	}
	writeStream(t, filepath.Join(dir, "payments.jsonl"), recs)
	writeStream(t, filepath.Join(dir, usage.FileName), samples)
	writeStream(t, filepath.Join(dir, chanstate.FileName), readings)
	got, _, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Resources) != 2 {
		t.Fatalf("%d resource cases", len(got.Resources))
	}
	want := "bound by the alice–bob channel's commitment pipeline: 2.0 commitment updates per payment over 1 channel (alice–bob), at most 3 HTLCs in flight of 483; throughput +4% from c=5 to c=40 while p50 rose ×7.6"
	for _, c := range got.Resources {
		if l := c.Verdict.Limit; l == nil || l.Kind != "channel-pipeline" || l.Channel != "alice–bob" || l.Text != want {
			t.Errorf("%s: %+v\nwant %q", c.ID, c.Verdict, want)
		}
	}
	for name, render := range map[string]func(io.Writer, Report) error{
		"json": JSON, "markdown": Markdown, "text": Text,
		"html": func(w io.Writer, r Report) error { return HTML(w, r, nil) },
	} {
		var b bytes.Buffer
		if err := render(&b, got); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "bound by the alice–bob channel") {
			t.Errorf("%s does not name the bound", name)
		}
	}
	// Without the channel stream the same sweep names no channel.
	SummarizeResources(&got, samples, recs)
	if l := got.Resources[0].Verdict.Limit; l == nil || l.Kind != "serialized-stage" {
		t.Errorf("without channel readings: %+v", got.Resources[0].Verdict)
	}
}

func writeStream[T any](t *testing.T, path string, vs []T) {
	t.Helper()
	w, err := jsonl.Create[T](path, filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if err := w.Write(v); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
}

func TestSweepGroup(t *testing.T) {
	row := func(node string, vs ...string) Row {
		r := Row{Node: node}
		for i := 0; i < len(vs); i += 2 {
			r.Params = append(r.Params, scenario.Value{Name: vs[i], Value: vs[i+1]})
		}
		return r
	}
	for _, tc := range []struct {
		name  string
		row   Row
		group string
		conc  int
	}{
		{"closed loop", row("a", "Concurrency", "20", "Storage", "disk"), "Node=a/Storage=disk", 20},
		{"open loop has no concurrency", row("a", "Concurrency", "20", "Rate", "50"), "", 0},
		{"no Concurrency param", row("a", "Storage", "disk"), "", 0},
	} {
		if g, c := sweepGroup(tc.row); g != tc.group || c != tc.conc {
			t.Errorf("%s: %q %d, want %q %d", tc.name, g, c, tc.group, tc.conc)
		}
	}
}
