package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/record/traces"
	"github.com/lnbench/lnbench/usage"
)

// profiledRun makes an artifacts folder with two sampling rounds of alice
// and bob, 60 s apart; alice's second window spends more time in log.
func profiledRun(t *testing.T) (string, []traces.Window) {
	t.Helper()
	dir := t.TempDir()
	stacks := map[string][]string{
		"alice": {"main;pay 10\nmain;log 10\n", "main;pay 10\nmain;log 30\n"},
		"bob":   {"main;settle 5\n", "main;settle 6\n"},
	}
	var ws []traces.Window
	for round := range 2 {
		for _, actor := range []string{"alice", "bob"} {
			start := t0.Add(time.Duration(round)*time.Minute + time.Duration(len(actor))*100*time.Millisecond)
			w := traces.Window{Actor: actor, Label: "periodic", Start: start, End: start.Add(10 * time.Second), Elapsed: float64(60 * round),
				Folded: filepath.Join(traces.Dir(actor), strings.Repeat("0", round+1)+".folded"),
				SVG:    filepath.Join(traces.Dir(actor), strings.Repeat("0", round+1)+".svg")}
			if err := os.MkdirAll(filepath.Join(dir, traces.Dir(actor)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, w.Folded), []byte(stacks[actor][round]), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := traces.Append(dir, w); err != nil {
				t.Fatal(err)
			}
			ws = append(ws, w)
		}
	}
	return dir, ws
}

func TestFlameRows(t *testing.T) {
	_, ws := profiledRun(t)
	var recs []result.Record
	for i := range 20 { // one success every second of the first round's 10 s, one in the second round
		end := t0.Add(time.Duration(i) * time.Second)
		recs = append(recs, result.Record{Status: result.Succeeded, End: end})
	}
	recs = append(recs, result.Record{Status: result.Failed, End: t0.Add(time.Second)})
	rows := FlameRows(ws, recs)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want one per sampling round", len(rows))
	}
	if len(rows[0].Windows) != 2 || rows[0].Windows["alice"].Actor != "alice" || rows[0].Windows["bob"].Actor != "bob" {
		t.Errorf("first row windows %v", rows[0].Windows)
	}
	// Row 0 spans t0+0.3 s .. t0+10.5 s: the successes at 1..10 s.
	if rows[0].Payments != 10 || rows[1].Payments != 0 {
		t.Errorf("payments per row %d, %d; want 10, 0", rows[0].Payments, rows[1].Payments)
	}
	if rows[0].PaymentsPerSec <= 0 {
		t.Errorf("payments/s %v", rows[0].PaymentsPerSec)
	}
}

func TestWriteFlameTimeline(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no rsvg-convert: the SVG is the product
	if err := WriteFlameTimeline(t.TempDir(), nil, 2); err != nil {
		t.Errorf("a run without profiles: %v", err)
	}
	dir, _ := profiledRun(t)
	if err := WriteFlameTimeline(dir, nil, 2); err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(dir, "flamegraphs.html"))
	if err != nil || !strings.Contains(string(html), "<th>alice</th><th>bob</th>") || strings.Count(string(html), `<td class="label">`) != 2 {
		t.Errorf("flamegraphs.html: %v\n%s", err, html)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "flamegraphs-timeline.svg"))
	if err != nil || strings.Count(string(svg), "<image ") != 4 {
		t.Errorf("flamegraphs-timeline.svg: %v\n%s", err, svg)
	}
	diff, err := os.ReadFile(filepath.Join(dir, traces.Dir("alice"), "diff-first-last.svg"))
	if err != nil || !strings.Contains(string(diff), "log") {
		t.Errorf("alice's differential graph: %v", err)
	}
}

// TestFlameTimelineShowsUsage: with resources.jsonl, each window shows its
// actor's CPU and syncs/s meanwhile; bob (half a CPU) slows down between
// the two rounds, alice has no quota and no sync counter.
func TestFlameTimelineShowsUsage(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir, _ := profiledRun(t)
	w, err := usage.Create(filepath.Join(dir, usage.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for k := range 76 {
		s := float64(k)
		bob := 0.49 * s
		if k > 30 {
			bob = 0.49*30 + 0.25*(s-30)
		}
		for _, smp := range []usage.Sample{
			{Time: t0.Add(time.Duration(k) * time.Second), Network: "n", Actor: "alice", Role: usage.RoleNode, Source: usage.SourceProc, CPUUserSeconds: 0.3 * s},
			{Time: t0.Add(time.Duration(k) * time.Second), Network: "n", Actor: "bob", Role: usage.RoleNode, Source: usage.SourceCgroupV1,
				CPUUserSeconds: bob, CPULimit: 0.5, Syncs: int64(280 * k), SyncsCounted: true},
		} {
			if err := w.Write(smp); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.Close()
	if err := WriteFlameTimeline(dir, nil, 2); err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(dir, "flamegraphs.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<b>CPU 98% of 0.5 · 280 syncs/s</b>", "<b>CPU 50% of 0.5 · 280 syncs/s</b>", "<b>CPU 15% of 2 · syncs not counted</b>"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("flamegraphs.html lacks %q", want)
		}
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "flamegraphs-timeline.svg"))
	if !strings.Contains(string(svg), ">CPU 98% of 0.5 · 280 syncs/s</text>") {
		t.Errorf("flamegraphs-timeline.svg lacks bob's usage:\n%s", svg)
	}
}

// TestFlameTimelineShowsAlignment: a window made for an iteration says how
// its whole-second slices lie against the iteration, in the page and the
// stacked SVG; a periodic window says nothing of the kind.
func TestFlameTimelineShowsAlignment(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	for i, w := range []traces.Window{
		{Actor: "alice", Label: "measure/Concurrency=5/0", Start: at(9.66), End: at(11.66), Want: &traces.Interval{Start: at(10), End: at(11.3)}},
		{Actor: "alice", Label: "periodic", Start: at(60), End: at(61)},
	} {
		w.Folded = filepath.Join(traces.Dir("alice"), fmt.Sprint(i)+".folded")
		w.SVG = filepath.Join(traces.Dir("alice"), fmt.Sprint(i)+".svg")
		if err := os.MkdirAll(filepath.Join(dir, traces.Dir("alice")), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, w.Folded), []byte("main;pay 10\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := traces.Append(dir, w); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteFlameTimeline(dir, nil, 2); err != nil {
		t.Fatal(err)
	}
	want := "window -0.34 s / +0.36 s of the iteration&#39;s start / end: covers 100% of its 1.30 s, 0.70 s outside it"
	html, _ := os.ReadFile(filepath.Join(dir, "flamegraphs.html"))
	if strings.Count(string(html), strings.Replace(want, "+", "&#43;", 1)) != 1 || strings.Count(string(html), "of the iteration&#39;s start") != 1 {
		t.Errorf("flamegraphs.html: want the iteration window's alignment once:\n%s", html)
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "flamegraphs-timeline.svg"))
	if strings.Count(string(svg), ">"+want+"</text>") != 1 {
		t.Errorf("flamegraphs-timeline.svg lacks the alignment:\n%s", svg)
	}
}
