package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/analysis"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/scenario"
)

func TestWriteSoak(t *testing.T) {
	dir, _ := profiledRun(t) // alice's windows: log grows to 30 of 40 samples
	s := scenario.Default()
	s.Params = []scenario.Param{{Name: "Concurrency", Values: []string{"7"}}, {Name: "TotalPayments", Values: []string{"4"}}}
	id := s.Cases()[0].ID()
	w, err := result.Create(filepath.Join(dir, "payments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 { // 12 iterations of 4 payments, 15 s apart, each 1 s long
		start := t0.Add(time.Duration(i) * 15 * time.Second)
		for j := range 4 {
			if err := w.Write(result.Record{Case: id, Phase: result.Measure, Iteration: i, Seq: j, Start: start, End: start.Add(time.Second), Status: result.Succeeded}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	soak, err := WriteSoak(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(soak.Points) != 12 || soak.Verdict != "stable" {
		t.Errorf("soak %d points, verdict %q; want 12, stable", len(soak.Points), soak.Verdict)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "soak.md"))
	for _, want := range []string{"# Soak: " + id, "Verdict: **stable**", "## alice: hottest frames", "- `log`: 40 samples"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("soak.md lacks %q:\n%s", want, md)
		}
	}
	var stored analysis.Soak
	if data, err := os.ReadFile(filepath.Join(dir, "soak.json")); err != nil || json.Unmarshal(data, &stored) != nil || len(stored.Points) != 12 {
		t.Errorf("soak.json: %v, %d points", err, len(stored.Points))
	}
}
