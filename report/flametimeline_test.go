package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/result"
	"github.com/lnbench/lnbench/traces"
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
