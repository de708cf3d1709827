package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/result"
	"github.com/lnbench/lnbench/scenario"
)

// makeRun writes an artifacts folder (scenario.yml + payments.jsonl, no
// summary.json) whose case Concurrency=2/TotalPayments=2 has one measured
// iteration per entry of secs, taking exactly that long.
func makeRun(t *testing.T, secs ...float64) string { return makeRunFor(t, []string{"2"}, secs...) }

// makeRunFor does the same for every Concurrency value of concs.
func makeRunFor(t *testing.T, concs []string, secs ...float64) string {
	t.Helper()
	dir := t.TempDir()
	s := scenario.Default()
	s.Params = []scenario.Param{{Name: "Concurrency", Values: concs}, {Name: "TotalPayments", Values: []string{"2"}}}
	s.Job.IterationCount = len(secs)
	if err := os.WriteFile(filepath.Join(dir, "scenario.yml"), s.YAML(), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := result.Create(filepath.Join(dir, "payments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for ci, conc := range concs {
		for i, sec := range secs {
			start := t0.Add(time.Duration(ci)*time.Hour + time.Duration(i)*10*time.Second)
			for j, frac := range []float64{0.5, 1} {
				lat := time.Duration(sec * frac * float64(time.Second))
				if err := w.Write(result.Record{Case: "Concurrency=" + conc + "/TotalPayments=2", Phase: result.Measure, Iteration: i,
					Worker: j, Seq: j, Start: start, End: start.Add(lat), Status: result.Succeeded}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// scaled is 10 iteration times around 1 s, times f.
func scaled(f float64) []float64 {
	out := make([]float64, 10)
	for i := range out {
		out[i] = (1 + 0.01*float64(i)) * f
	}
	return out
}

func TestCompareVerdicts(t *testing.T) {
	tests := []struct {
		name    string
		base    []float64
		new     []float64
		verdict string // of both metrics
		exit    int    // with --fail-on-regression
	}{
		{"slower regressed", scaled(1), scaled(1.2), "regressed", 1},
		{"faster improved", scaled(1), scaled(0.8), "improved", 0},
		// All new iterations are slower (significant) but only by 1%, under --noise 0.02.
		{"tiny change within noise", scaled(1), scaled(1.01), "within noise", 0},
		// 3 vs 3 (every --quick pair) can never reach p < 0.05 (best p =
		// 2/C(6,3) = 0.1): the change is printed, but not as significant.
		{"too few iterations", []float64{1, 1.1, 1.2}, []float64{2, 2.1, 2.2}, "not significant (too few samples)", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, nw := makeRun(t, tt.base...), makeRun(t, tt.new...)
			var out, errb bytes.Buffer
			err := Run(context.Background(), &out, &errb, []string{"compare", base, nw, "--alpha", "0.05", "--noise", "0.02"})
			if err != nil {
				t.Fatalf("without --fail-on-regression: %v", err)
			}
			row := ""
			for _, l := range strings.Split(out.String(), "\n") {
				if strings.HasPrefix(l, "Concurrency=2/TotalPayments=2") {
					row = l
				}
			}
			if strings.Count(row, tt.verdict) != 2 {
				t.Errorf("row %q: want %q for time and payments/s\n%s", row, tt.verdict, out.String())
			}
			err = Run(context.Background(), &out, &errb, []string{"compare", base, nw, "--fail-on-regression"})
			var reg ErrRegression
			if gotReg := errors.As(err, &reg); gotReg != (tt.exit == 1) {
				t.Errorf("--fail-on-regression: err = %v, want regression %v", err, tt.exit == 1)
			}
			if code := Main(&out, &errb, []string{"compare", base, nw, "--fail-on-regression"}); code != tt.exit {
				t.Errorf("exit code = %d, want %d", code, tt.exit)
			}
		})
	}
}

func TestCompareReportsChange(t *testing.T) {
	var out bytes.Buffer
	if err := Run(context.Background(), &out, &out, []string{"compare", makeRun(t, scaled(1)...), makeRun(t, scaled(1.2)...)}); err != nil {
		t.Fatal(err)
	}
	// Median 1.045 s → 1.254 s: +20% time, -16.7% payments/s.
	for _, want := range []string{"1.045 s", "1.254 s", "+20.0%", "-16.7%"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestCompareTooFewShowsChange(t *testing.T) {
	var out bytes.Buffer
	if err := Run(context.Background(), &out, &out, []string{"compare", makeRun(t, 1, 1.1, 1.2), makeRun(t, 2, 2.1, 2.2)}); err != nil {
		t.Fatal(err)
	}
	// Median 1.1 s → 2.1 s: +90.9% time; payments/s 2/1.1 → 2/2.1: -47.6%.
	for _, want := range []string{"+90.9%", "-47.6%", "need >= 4 per sample"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "+0.0%") {
		t.Errorf("a change hidden as +0.0%%:\n%s", out.String())
	}
}

func TestCompareErrors(t *testing.T) {
	var out bytes.Buffer
	if err := Run(context.Background(), &out, &out, []string{"compare", makeRun(t, 1), t.TempDir()}); err == nil {
		t.Error("a folder without results should be an error")
	}
	base, nw := makeRunFor(t, []string{"2"}, 1, 1, 1, 1), makeRunFor(t, []string{"2", "3"}, 1, 1, 1, 1)
	err := Run(context.Background(), &out, &out, []string{"compare", base, nw})
	if err != nil || !strings.Contains(out.String(), "Concurrency=3/TotalPayments=2: only in new") {
		t.Errorf("err = %v, output:\n%s", err, out.String())
	}
	out.Reset()
	if err := Run(context.Background(), &out, &out, []string{"compare", base, makeRunFor(t, []string{"3"}, 1)}); err == nil {
		t.Error("no case in common should be an error")
	}
}
