package collect

import (
	"fmt"
	"time"

	"github.com/prometheus/procfs"

	"github.com/lnbench/lnbench/usage"
)

// Host reads the host's busy CPU from /proc/stat as the host pseudo-actor:
// user+nice as user time, system+irq+softirq+steal as system time (idle
// and iowait are not busy; guest time is already inside user). CPULimit is
// the number of CPUs /proc/stat lists. procfs is the parser because it was
// already in the module graph (prometheus client's dependency).
func (c *Collector) Host() (usage.Sample, error) {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	s := usage.Sample{Time: now().UTC(), Actor: usage.RoleHost, Role: usage.RoleHost, Source: usage.SourceProcStat}
	fs, err := procfs.NewFS(c.procRoot())
	if err != nil {
		return s, fmt.Errorf("host: %v", err)
	}
	st, err := fs.Stat()
	if err != nil {
		return s, fmt.Errorf("host: %v", err)
	}
	t := st.CPUTotal
	s.CPUUserSeconds = t.User + t.Nice
	s.CPUSysSeconds = t.System + t.IRQ + t.SoftIRQ + t.Steal
	s.CPUStealSeconds = t.Steal
	s.CPULimit = float64(len(st.CPU))
	return s, nil
}
