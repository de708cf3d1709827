package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/usage"
)

// TestReportRegeneratesResources: `lnbench report DIR` on a folder with
// resources.jsonl rebuilds the Resources tables, the resource CSVs and
// prints the verdict; bob, limited to half a CPU, runs at 0.49.
func TestReportRegeneratesResources(t *testing.T) {
	dir := makeRun(t, scaled(1)...)
	w, err := usage.Create(filepath.Join(dir, usage.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for k := -1; k <= 100; k++ {
		el := float64(k + 1)
		for _, s := range []usage.Sample{
			{Actor: "alice", Role: usage.RoleNode, CPUUserSeconds: 0.2 * el, Syncs: int64(9 * k), SyncsCounted: true},
			{Actor: "bob", Role: usage.RoleNode, CPUUserSeconds: 0.49 * el, CPULimit: 0.5, Syncs: int64(14 * k), SyncsCounted: true},
			{Actor: "harness", Role: usage.RoleHarness, CPUUserSeconds: 0.004 * el},
		} {
			s.Time, s.Network, s.Case, s.Phase, s.Source = t0.Add(time.Duration(k)*time.Second), "n", "Concurrency=2/TotalPayments=2", result.Measure, usage.SourceCgroupV1
			if err := w.Write(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.Close()
	t.Setenv("PATH", t.TempDir())
	var out, errb bytes.Buffer
	if err := Run(context.Background(), &out, &errb, []string{"report", dir}); err != nil {
		t.Fatal(err)
	}
	if want := "Concurrency=2/TotalPayments=2: bob CPU 98% of its 0.5-CPU limit; disk sync ceiling unknown (no disk probe for storage \"disk\"): CPU-bound at bob"; !strings.Contains(out.String(), want) {
		t.Errorf("stdout lacks %q:\n%s", want, out.String())
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	for _, want := range []string{"## Resources", "| bob | ", "| 98% of 0.5 |", "Harness CPU: 0.58% of the nodes' CPU"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
	for _, f := range []string{report.ResourcesCSVName, report.ResourceTimelineCSVName} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}
