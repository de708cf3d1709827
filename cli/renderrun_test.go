package cli

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/scenario"
)

// TestRenderRunNeedsTheManifest: `lnbench run` reports a run once the
// runner has left its manifest (also after a failure part way), and
// nothing for a run that failed before it had one.
func TestRenderRunNeedsTheManifest(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no R: plots are not what this tests
	dir := makeRun(t, 1, 1.2)
	rep, err := renderRun(dir, io.Discard, report.RenderOptions{})
	if err != nil || len(rep.Cases) != 0 {
		t.Fatalf("without run.json: %d cases, %v; want nothing rendered", len(rep.Cases), err)
	}
	if _, err := os.Stat(filepath.Join(dir, record.SummaryFile)); err == nil {
		t.Fatal("summary.json written for a run without a manifest")
	}
	s, err := scenario.Load(filepath.Join(dir, record.ScenarioFile))
	if err != nil {
		t.Fatal(err)
	}
	m := record.Manifest{RunID: filepath.Base(dir), Scenario: s, Backend: "local", Warnings: []string{"run ended early: interrupted"}}
	if err := record.Write(dir, m); err != nil {
		t.Fatal(err)
	}
	if rep, err = renderRun(dir, io.Discard, report.RenderOptions{}); err != nil || len(rep.Cases) != 1 || rep.Warnings[0] != m.Warnings[0] {
		t.Fatalf("with run.json: %d cases, warnings %q, %v", len(rep.Cases), rep.Warnings, err)
	}
	if _, err := os.Stat(filepath.Join(dir, record.SummaryFile)); err != nil {
		t.Errorf("summary.json: %v", err)
	}
}
