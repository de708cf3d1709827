package report

import (
	"slices"
	"testing"
)

func TestSparkline(t *testing.T) {
	// Peak 8 → █; 1 of 8 → ▁; 0 stays blank; 3 of 8 rounds up to ▃.
	got := Sparkline([]int{8, 1, 0, 3, 4, 8}, 4)
	want := []string{"   0s │█▁ ▃", "   4s │▄█"}
	if !slices.Equal(got, want) {
		t.Errorf("Sparkline = %q, want %q", got, want)
	}
	if Sparkline(nil, 60) != nil {
		t.Error("empty timeline should draw nothing")
	}
}

func TestHeatmapRowsMatchIterations(t *testing.T) {
	c := fixtureReport().Cases[0]
	hm := Heatmap(c.Case)
	// Caption, one row per iteration, the histogram row.
	if len(hm) != 1+len(c.Iterations)+1 {
		t.Fatalf("heatmap has %d lines: %q", len(hm), hm)
	}
	if want := "   all │"; hm[len(hm)-1][:len(want)] != want {
		t.Errorf("last row = %q", hm[len(hm)-1])
	}
}
