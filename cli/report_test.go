package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportCommand regenerates a folder that has only scenario.yml and
// payments.jsonl, without R on PATH: one line says so, every other report
// is written.
func TestReportCommand(t *testing.T) {
	dir := makeRun(t, scaled(1)...)
	hist := t.TempDir()
	t.Setenv("PATH", t.TempDir())
	var out, errb bytes.Buffer
	if err := Run(context.Background(), &out, &errb, []string{"report", dir, "--history", hist}); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(errb.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "Rscript not found") {
		t.Errorf("stderr = %q, want one line about R", errb.String())
	}
	for _, f := range []string{"summary.md", "summary.csv", "summary.json", "measurements.csv", "results.bench", "plots.R", "report.html"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if !strings.Contains(out.String(), "RunAlicePaysBob") {
		t.Errorf("stdout lacks the summary table:\n%s", out.String())
	}
	if b, _ := os.ReadFile(filepath.Join(hist, "history.csv")); strings.Count(string(b), "\n") != 2 {
		t.Errorf("history.csv = %q, want header + 1 row", b)
	}
	// Running it again on its own output (now with summary.json) gives the same summary.
	first, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err := Run(context.Background(), &out, &errb, []string{"report", dir}); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "summary.md")); !bytes.Equal(first, again) {
		t.Errorf("report is not idempotent:\n%s\n---\n%s", first, again)
	}
}
