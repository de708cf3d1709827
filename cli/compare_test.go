package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/scenario"
)

// makeRun writes an artifacts folder (scenario.yml + payments.jsonl, no
// summary.json) whose case Concurrency=2/TotalPayments=2 has one measured
// iteration per entry of secs, taking exactly that long.
func makeRun(t *testing.T, secs ...float64) string { return makeRunFor(t, []string{"2"}, secs...) }

// makeLaunchRun is makeRun of a run of the given launches, the iterations
// split evenly between them in order.
func makeLaunchRun(t *testing.T, launches int, secs ...float64) string {
	return makeRunOf(t, launches, []string{"2"}, secs...)
}

// makeRunFor does the same for every Concurrency value of concs.
func makeRunFor(t *testing.T, concs []string, secs ...float64) string {
	return makeRunOf(t, 1, concs, secs...)
}

func makeRunOf(t *testing.T, launches int, concs []string, secs ...float64) string {
	t.Helper()
	dir := t.TempDir()
	s := scenario.Default()
	s.Params = []scenario.Param{{Name: "Concurrency", Values: concs}, {Name: "TotalPayments", Values: []string{"2"}}}
	s.Job.IterationCount = len(secs) / launches
	s.Job.LaunchCount = launches
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

// launches is 6 launches of 3 iterations around 1 s, the launches 1–3%
// apart as on a quiet machine, times f.
func launches(f float64) []float64 {
	var out []float64
	for _, l := range []float64{1, 1.02, 0.99, 1.03, 0.98, 1.01} {
		out = append(out, l*f, l*f*1.01, l*f*0.99)
	}
	return out
}

func TestCompareVerdicts(t *testing.T) {
	tests := []struct {
		name     string
		launches int
		base     []float64
		new      []float64
		verdict  string
		exit     int // with --fail-on-regression
	}{
		{"slower", 6, launches(1), launches(1.2), "slower", 1},
		{"faster", 6, launches(1), launches(0.8), "faster", 0},
		{"same", 6, launches(1), launches(1.001), "same", 0},
		// One launch a side: clearly 20% slower over its iterations, yet
		// not a verdict (the iterations cannot see launch variance).
		{"one launch a side", 1, scaled(1), scaled(1.2), "not yet known", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, nw := makeLaunchRun(t, tt.launches, tt.base...), makeLaunchRun(t, tt.launches, tt.new...)
			var out, errb bytes.Buffer
			err := Run(context.Background(), &out, &errb, []string{"compare", base, nw, "--alpha", "0.05", "--noise", "0.02", "--effect", "5%"})
			if err != nil {
				t.Fatalf("without --fail-on-regression: %v", err)
			}
			row := ""
			for _, l := range strings.Split(out.String(), "\n") {
				if strings.HasPrefix(l, "Concurrency=2/TotalPayments=2") {
					row = l
				}
			}
			if !strings.Contains(row, tt.verdict) || !strings.Contains(row, fmt.Sprintf("%d+%d", tt.launches, tt.launches)) && tt.launches > 1 {
				t.Errorf("row %q: want %q over %d launches\n%s", row, tt.verdict, tt.launches, out.String())
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
	var out bytes.Buffer
	if err := Run(context.Background(), &out, &out, []string{"compare", makeRun(t, 1), makeRun(t, 1), "--effect", "x"}); err == nil || !strings.Contains(err.Error(), "--effect") {
		t.Errorf("a bad --effect: %v", err)
	}
}

func TestCompareReportsChange(t *testing.T) {
	var out bytes.Buffer
	if err := Run(context.Background(), &out, &out, []string{"compare", makeRun(t, scaled(1)...), makeRun(t, scaled(1.2)...)}); err != nil {
		t.Fatal(err)
	}
	// Median 1.045 s → 1.254 s: +20% time, -16.7% payments/s.
	for _, want := range []string{"1.045 s", "1.254 s", "+20.0%", "-16.7%", "LaunchCount="} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
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
