package report

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// TestBenchParses reads the output back with benchfmt's own reader.
func TestBenchParses(t *testing.T) {
	var b bytes.Buffer
	if err := Bench(&b, fixtureReport()); err != nil {
		t.Fatal(err)
	}
	rd := benchfmt.NewReader(&b, "results.bench")
	results, better := 0, ""
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatalf("syntax error: %v", rec)
		case *benchfmt.Result:
			results++
			if v, ok := rec.Value("payments/s"); !ok || v <= 0 {
				t.Errorf("%s: payments/s = %v, %v", rec.Name, v, ok)
			}
			if rec.GetConfig("node") != "lnd v0.21.0-beta" || rec.GetConfig("pkg") != "lnbench" {
				t.Errorf("config = %v", rec.Config)
			}
			if rec.Iters != 4 {
				t.Errorf("N = %d, want the 4 payments of an iteration", rec.Iters)
			}
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	if m := rd.Units().Get("payments/s", "better"); m != nil {
		better = m.Value
	}
	// 8 complete iterations per case.
	if results != 16 || better != "higher" {
		t.Errorf("results = %d, better = %q; want 16, higher", results, better)
	}
}

// TestBenchstatReadsIt runs the real benchstat on two generated files and
// checks it compares payments/s as a higher-is-better unit.
func TestBenchstatReadsIt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds benchstat")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	base := fixtureReport()
	slow := fixtureReport()
	for i := range slow.Cases {
		for j := range slow.Cases[i].Iterations {
			it := &slow.Cases[i].Iterations[j]
			it.Seconds *= 2
			it.PaymentsPerSec /= 2
		}
	}
	for name, r := range map[string]Report{"base.bench": base, "new.bench": slow} {
		var b bytes.Buffer
		if err := Bench(&b, r); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Run from the package folder: the module's go.mod pins x/perf.
	out, err := exec.Command("go", "run", "golang.org/x/perf/cmd/benchstat",
		filepath.Join(dir, "base.bench"), filepath.Join(dir, "new.bench")).CombinedOutput()
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, out)
	}
	s := string(out)
	t.Logf("benchstat output:\n%s", s)
	// Halved throughput over 8+8 samples: -50% with p=0.000, and the
	// geomean row in the payments/s table.
	for _, want := range []string{"payments/s", "sec/op", "p50-latency-ms", "-50.00%", "+100.00%", "AlicePaysBob/Concurrency=20/TotalPayments=4"} {
		if !strings.Contains(s, want) {
			t.Errorf("benchstat output lacks %q", want)
		}
	}
}
