package stats

import "math"

// Stability classifies how noisy a sample is from its coefficient of
// variation, so reports can flag runs that need more iterations.
type Stability int

const (
	Stable   Stability = iota // CV < StableCV
	Moderate                  // StableCV ≤ CV < ModerateCV
	Unstable                  // CV ≥ ModerateCV (or CV is NaN)
)

// Thresholds on |CV|. Below 5% run-to-run differences of a few percent are
// still detectable; above 15% only large changes are, which is worth
// telling the reader.
const (
	StableCV   = 0.05
	ModerateCV = 0.15
)

// StabilityOf classifies a coefficient of variation. The sign is ignored
// (a negative mean gives a negative CV but the same relative spread).
func StabilityOf(cv float64) Stability {
	a := math.Abs(cv)
	switch {
	case a < StableCV:
		return Stable
	case a < ModerateCV:
		return Moderate
	default: // also NaN: unknown spread is not stable
		return Unstable
	}
}

func (s Stability) String() string {
	switch s {
	case Stable:
		return "stable"
	case Moderate:
		return "moderate"
	case Unstable:
		return "unstable"
	}
	return "unknown"
}
