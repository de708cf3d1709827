package cost

import (
	"testing"

	"github.com/lnbench/lnbench/usage"
)

func TestCPUDelta(t *testing.T) {
	at := func(cpu float64, source string) usage.Sample {
		return usage.Sample{CPUUserSeconds: cpu, Source: source}
	}
	for _, tc := range []struct {
		name      string
		p, s      usage.Sample
		want      float64
		wantReset bool
	}{
		{"forward", at(10, "proc"), at(10.5, "proc"), 0.5, false},
		// Seen on a compose run: two collections' samples of the harness,
		// the later-stamped one read first.
		{"a reading out of order is jitter", at(59.89, "proc"), at(59.87, "proc"), 0, false},
		{"a restart starts near zero", at(59.89, "proc"), at(0.4, "proc"), 0.4, true},
		{"a step back beyond jitter is a restart", at(59.89, "proc"), at(59.5, "proc"), 59.5, true},
		{"a small counter's step back beyond its share", at(0.5, "proc"), at(0.4, "proc"), 0.4, true},
		{"another source", at(10, "cgroup"), at(10.5, "proc"), 10.5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, reset := cpuDelta(tc.p, tc.s)
			if reset != tc.wantReset || d < tc.want-1e-9 || d > tc.want+1e-9 {
				t.Errorf("cpuDelta = %.3f, reset %v; want %.3f, %v", d, reset, tc.want, tc.wantReset)
			}
		})
	}
}
