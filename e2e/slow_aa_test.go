//go:build e2e

package e2e

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/report"
)

// aaGoal is the false-positive rate the verdicts aim at (issue: ≤ 2%;
// asv measured 3.7% interleaved on shared CI runners). The test fails
// only when the measured rate's 95% lower bound is above alpha itself
// (0.05): a design whose verdicts are demonstrably overconfident. The
// rates are logged for the closing note either way.
const aaGoal = 0.02

// TestSlowAACalibration measures the A/A false-positive rate of each
// design on real lnd: 4 cases on one network per launch, 60 launch pairs,
// read as 10 windows of 6 pairs (the default LaunchCount of a comparison):
// 40 comparisons per design. Hours: run one design with
// -run 'TestSlowAACalibration/duet'. LNBENCH_AA_PAIRS lowers the pairs for a
// shorter, weaker reading.
func TestSlowAACalibration(t *testing.T) {
	testsupport.SlowTier(t)
	binaries(t)
	pairs := "60"
	if p := os.Getenv("LNBENCH_AA_PAIRS"); p != "" {
		pairs = p
	}
	for _, design := range []string{"sequential", "interleaved", "duet"} {
		t.Run(design, func(t *testing.T) {
			dir := runCLI(t, "calibrate", "--node", "lnd@v0.21.0-beta", "--design", design, "--pairs", pairs, "--window", "6",
				"--reuse-network", "--param", "Concurrency=10,20,40,80", "--param", "TotalPayments=60",
				"--job", "WarmupCount=1", "--job", "IterationCount=4", "--yes")
			var cal report.Calibration
			if err := json.Unmarshal([]byte(readFile(t, dir, "calibration.json")), &cal); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d of %d A/A comparisons false (%.1f%%, 95%% upper bound %.1f%%; goal %.0f%%), same %d, not yet known %d; RMS log ratio of one pair %.1f%%, median MDE %.1f%% (%s)",
				design, cal.False, cal.Comparisons, 100*cal.Rate, 100*cal.RateHigh, 100*aaGoal, cal.Same, cal.Unknown, 100*cal.RMSLogRatio, 100*cal.MedianMDE, dir)
			if low := lowerBound(cal.False, cal.Comparisons); low > cal.Alpha {
				t.Errorf("%s: false-positive rate %.1f%% (95%% lower bound %.1f%%) is above alpha %g", design, 100*cal.Rate, 100*low, cal.Alpha)
			}
			if cal.Comparisons < 40 && os.Getenv("LNBENCH_AA_PAIRS") == "" {
				t.Errorf("%d comparisons, want ≥ 40", cal.Comparisons)
			}
		})
	}
}

// lowerBound is a one-sided 95% lower bound of k/n (Wilson score).
func lowerBound(k, n int) float64 {
	if n == 0 {
		return 0
	}
	p, z := float64(k)/float64(n), 1.645
	den := 1 + z*z/float64(n)
	center := p + z*z/(2*float64(n))
	half := z * math.Sqrt(p*(1-p)/float64(n)+z*z/(4*float64(n*n)))
	return (center - half) / den
}
