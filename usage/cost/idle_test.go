package cost

import (
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/usage"
)

func TestIdleNoteCountsTheWaitingNetworksActors(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	var samples []usage.Sample
	// bob idles at 0.1 cores for 2 s, measures at 0.8 for 1 s; the harness
	// (driving the other network meanwhile) is left out.
	for _, a := range []struct {
		name   string
		idle   float64
		active float64
	}{{"bob", 0.1, 0.8}, {usage.RoleHarness, 0.5, 0.5}} {
		cpu := 0.0
		for i, ph := range []string{"", usage.PhaseIdle, usage.PhaseIdle, result.Measure} {
			if ph == usage.PhaseIdle {
				cpu += a.idle
			} else if ph == result.Measure {
				cpu += a.active
			}
			samples = append(samples, usage.Sample{Time: t0.Add(time.Duration(i) * time.Second), Network: "n", Case: "c", Phase: ph, Actor: a.name, CPUUserSeconds: cpu})
		}
	}
	note := idleNote("c", seriesOf(samples))
	if !strings.Contains(note, "(2 s)") || !strings.Contains(note, "used 0.100 cores") {
		t.Errorf("note %q, want 0.100 cores over 2 s", note)
	}
	if idleNote("other", seriesOf(samples)) != "" {
		t.Error("a case without idle samples has an idle note")
	}
}
