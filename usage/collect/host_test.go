package collect

import (
	"testing"

	"github.com/lnbench/lnbench/usage"
)

// TestHost reads testdata/proc/stat: busy is user+nice (user) and
// system+irq+softirq+steal (system), in seconds at USER_HZ=100; idle and
// iowait are left out.
func TestHost(t *testing.T) {
	s, err := fixture("v2").Host()
	if err != nil {
		t.Fatal(err)
	}
	if s.Actor != usage.RoleHost || s.Role != usage.RoleHost || s.Source != usage.SourceProcStat || !s.Time.Equal(t0) {
		t.Errorf("tags: %+v", s)
	}
	if !near(s.CPUUserSeconds, 12) || !near(s.CPUSysSeconds, 3.66) || s.CPULimit != 2 {
		t.Errorf("user %g sys %g cpus %g, want 12 3.66 2", s.CPUUserSeconds, s.CPUSysSeconds, s.CPULimit)
	}
	if !near(s.CPUStealSeconds, 0.33) {
		t.Errorf("steal %g, want 0.33 (the 8th field)", s.CPUStealSeconds)
	}
	if _, err := (&Collector{ProcRoot: "testdata/none"}).Host(); err == nil {
		t.Error("a missing /proc/stat read without error")
	}
}
