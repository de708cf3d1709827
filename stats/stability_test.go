package stats

import (
	"math"
	"testing"
)

func TestStabilityOf(t *testing.T) {
	tests := []struct {
		cv   float64
		want Stability
		str  string
	}{
		{0, Stable, "stable"},
		{0.0499, Stable, "stable"},
		{0.05, Moderate, "moderate"},
		{0.1, Moderate, "moderate"},
		{-0.1, Moderate, "moderate"}, // negative mean: sign ignored
		{0.15, Unstable, "unstable"},
		{2, Unstable, "unstable"},
		{math.NaN(), Unstable, "unstable"},
	}
	for _, tt := range tests {
		got := StabilityOf(tt.cv)
		if got != tt.want || got.String() != tt.str {
			t.Errorf("StabilityOf(%v) = %v (%q), want %v (%q)", tt.cv, int(got), got, int(tt.want), tt.str)
		}
	}
	if s := Stability(42).String(); s != "unknown" {
		t.Errorf("unknown Stability String = %q", s)
	}
}
