package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportFaults regenerates the synthetic faulted run's folder: the
// terminal lists each fault with its recovery, faults.csv is written.
func TestReportFaults(t *testing.T) {
	src := filepath.Join("..", "report", "testdata", "faults-run")
	dir := t.TempDir()
	for _, name := range []string{"summary.json", "payments.jsonl", "faults.jsonl"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", t.TempDir())
	var out, errb bytes.Buffer
	if err := Run(context.Background(), &out, &errb, []string{"report", dir}); err != nil {
		t.Fatal(err)
	}
	want := "Concurrency=4/TotalPayments=300: restart bob at 12.0 s for 5.0 s (iteration 0): 22 failed, 2 stalled, 0 aborted; throughput back within 10% 3.2 s after its end; channels active 1.5 s after"
	if !strings.Contains(out.String(), want) {
		t.Errorf("stdout lacks %q:\n%s", want, out.String())
	}
	if st, err := os.Stat(filepath.Join(dir, "faults.csv")); err != nil || st.Size() == 0 {
		t.Errorf("faults.csv not written: %v", err)
	}
}
