package analysis

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/lnbench/lnbench/stats"
)

// Spread describes how the complete iteration times vary.
type Spread struct {
	CV        float64 `json:"cv"`
	Stability string  `json:"stability"` // stable | moderate | unstable (stats.StabilityOf)
	IQR       float64 `json:"iqr_seconds"`
	// Jitter is the mean |difference| between consecutive iterations: unlike
	// StdDev it ignores slow drift.
	Jitter         float64   `json:"jitter_seconds"`
	MildOutliers   int       `json:"mild_outliers"`
	SevereOutliers int       `json:"severe_outliers"`
	Outliers       []Outlier `json:"outliers,omitempty"`
	Drift          *Drift    `json:"drift,omitempty"` // nil below 3 iterations
}

// Outlier is an iteration beyond Tukey's fences. Outliers are reported, never removed.
type Outlier struct {
	Iteration int     `json:"iteration"`
	Seconds   float64 `json:"seconds"`
	Severe    bool    `json:"severe"` // beyond 3·IQR, else mild (1.5·IQR)
	High      bool    `json:"high"`   // slower than Q3, else faster than Q1
}

// Drift is a least-squares line of iteration time against iteration index.
type Drift struct {
	Slope    float64 `json:"slope_seconds"` // per iteration
	Relative float64 `json:"relative"`      // Slope / mean iteration time
	R2       float64 `json:"r2"`
	P        float64 `json:"p"` // two-sided t-test of slope = 0
}

// Thresholds of the drift note: the slope must be significant, and large
// enough that the fitted change over the whole run reaches stats.StableCV
// (5%), the spread below which a sample counts as stable anyway.
const (
	driftAlpha = 0.05
	driftTotal = stats.StableCV
)

// Significant tells whether the drift is worth a note over n iterations.
func (d Drift) Significant(n int) bool {
	return d.P < driftAlpha && math.Abs(d.Relative)*float64(n-1) >= driftTotal
}

func spreadOf(iters []Iteration, t stats.Summary) Spread {
	var xs, idx []float64
	var its []int
	for _, it := range iters {
		if it.Complete {
			xs = append(xs, it.Seconds)
			idx = append(idx, float64(it.Index))
			its = append(its, it.Index)
		}
	}
	s := Spread{CV: t.CV, Stability: stats.StabilityOf(t.CV).String(), IQR: t.IQR, Jitter: stats.Jitter(xs)}
	if t.N < 2 {
		s.Stability = "unknown"
	}
	// Tukey fences as stats.TukeyOutliers draws them, applied per iteration
	// so the list can name which iterations they were.
	iqr := t.Q3 - t.Q1
	for i, x := range xs {
		o := Outlier{Iteration: its[i], Seconds: x}
		switch {
		case x > t.Q3+3*iqr:
			o.High, o.Severe = true, true
		case x > t.Q3+1.5*iqr:
			o.High = true
		case x < t.Q1-3*iqr:
			o.Severe = true
		case x < t.Q1-1.5*iqr:
			// low mild: the zero values are right
		default:
			continue
		}
		s.Outliers = append(s.Outliers, o)
		if o.Severe {
			s.SevereOutliers++
		} else {
			s.MildOutliers++
		}
	}
	s.Drift = drift(idx, xs, t.Mean)
	return s
}

// drift fits time against index and tests the slope with the usual t
// statistic r·√((n-2)/(1-r²)) on n-2 degrees of freedom.
func drift(idx, xs []float64, mean float64) *Drift {
	n := len(xs)
	if n < 3 || mean == 0 {
		return nil
	}
	f, err := stats.LinearFit(idx, xs)
	if err != nil {
		return nil
	}
	d := &Drift{Slope: f.Slope, Relative: f.Slope / mean, R2: f.R2, P: 1}
	if f.Slope == 0 {
		return d
	}
	rest := 1 - f.R2
	if rest <= 0 {
		d.P = 0 // points exactly on a sloped line
		return d
	}
	tv := math.Sqrt(f.R2 * float64(n-2) / rest)
	d.P = 2 * (1 - distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 2)}.CDF(tv))
	return d
}
