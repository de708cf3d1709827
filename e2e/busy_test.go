//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/usage"
	"github.com/lnbench/lnbench/usage/cost"
)

// TestBusyMachineGuard runs a small local AlicePaysBob twice: beside a
// CPU burner (a shell spinning, started before the run and killed after)
// the case is flagged busy; without it, it is flagged busy only when other
// work on this (shared) machine really was. lnbench's outside figure is
// cross-checked against readings it did not make, over the same measured
// intervals: the burner's own /proc/<pid>/stat, and an independent
// "outside" read here every 100 ms as the host's busy CPU minus this test
// process and every descendant (the in-process harness and the nodes it
// started), which knows nothing of actors, roles or networks.
func TestBusyMachineGuard(t *testing.T) {
	binaries(t)
	scen := filepath.Join(t.TempDir(), "busy.yml")
	os.WriteFile(scen, []byte(`name: Busy
topology: AlicePaysBob
params: {Concurrency: [5], TotalPayments: [100]}
job: {WarmupCount: 1, IterationCount: 3}
`), 0o644)

	// Beside a burner.
	burner := exec.Command("sh", "-c", "while :; do :; done")
	if err := burner.Start(); err != nil {
		t.Fatal(err)
	}
	stopBurner := func() { burner.Process.Kill(); burner.Wait() }
	t.Cleanup(stopBurner)
	reads := followCPU(burner.Process.Pid)
	indep := followOutside(burner.Process.Pid)
	dir := runCLI(t, "run", scen)
	burnt, other := reads.stop(), indep.stop()
	stopBurner()
	o, md := outsideOf(t, dir)
	iv := hostIntervals(t, dir)
	burnerCores, otherCores := burnt.coresOver(iv), other.coresOver(iv)
	t.Logf("burner run: lnbench outside %.3f cores (%.0f%% of %g; host %.2f s − run %.2f s over %.2f s); over the same intervals, read here: outside %.3f cores, the burner's own stat %.3f",
		o.Cores, 100*o.HostShare, o.HostCores, o.HostCPUSeconds, o.RunCPUSeconds, o.Seconds, otherCores, burnerCores)
	if !o.Busy || !strings.Contains(md, "busy machine: other processes used") {
		t.Errorf("burner beside the run: busy %v, summary.md warns: %v", o.Busy, strings.Contains(md, "busy machine:"))
	}
	// The burner is outside: the whole outside is never much less.
	if o.Cores < burnerCores-0.1 {
		t.Errorf("outside %.3f cores < the burner's own %.3f", o.Cores, burnerCores)
	}
	agree(t, o.Cores, otherCores)

	// Without the burner: busy exactly when the independent reading says
	// other work ran (0.1 core either side of the threshold is ambiguous).
	indep = followOutside(0)
	dir = runCLI(t, "run", scen)
	other = indep.stop()
	o, md = outsideOf(t, dir)
	otherCores = other.coresOver(hostIntervals(t, dir))
	t.Logf("run without burner: lnbench outside %.3f cores (%.0f%% of %g; host %.2f s − run %.2f s over %.2f s); read here %.3f cores",
		o.Cores, 100*o.HostShare, o.HostCores, o.HostCPUSeconds, o.RunCPUSeconds, o.Seconds, otherCores)
	agree(t, o.Cores, otherCores)
	limit := cost.BusyThreshold(o.HostCores)
	switch {
	case otherCores < limit-0.1 && (o.Busy || strings.Contains(md, "busy machine:")):
		t.Errorf("flagged busy while other work used %.3f cores (threshold %.2f)", otherCores, limit)
	case otherCores > limit+0.1 && !o.Busy:
		t.Errorf("not flagged while other work used %.3f cores (threshold %.2f)", otherCores, limit)
	case otherCores > limit-0.1:
		t.Logf("other work used %.2f cores meanwhile: the quiet case was not tested", otherCores)
	}
}

// agree fails when lnbench's outside cores and the reading made here
// differ by more than sampling explains (100 ms reads against 1 s samples
// of a load that changes in between).
func agree(t *testing.T, lnbench, here float64) {
	t.Helper()
	if d := lnbench - here; d > 0.2 || d < -0.2 {
		t.Errorf("outside %.3f cores (lnbench) vs %.3f (read here): they should agree", lnbench, here)
	}
}

// outsideOf is the only case's outside CPU and the summary's markdown.
func outsideOf(t *testing.T, dir string) (cost.Outside, string) {
	t.Helper()
	rep := readSummary(t, dir)
	if len(rep.Resources) != 1 || rep.Resources[0].Outside == nil {
		t.Fatalf("resources: %+v", rep.Resources)
	}
	md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	return *rep.Resources[0].Outside, string(md)
}

// hostIntervals are the host pseudo-actor's measured intervals, as
// package cost credits them.
func hostIntervals(t *testing.T, dir string) [][2]time.Time {
	var out [][2]time.Time
	var prev *usage.Sample
	for _, s := range loadSamples(t, dir) {
		if s.Role != usage.RoleHost {
			continue
		}
		if prev != nil && s.Phase == result.Measure && s.Case != "" {
			out = append(out, [2]time.Time{prev.Time, s.Time})
		}
		prev = &s
	}
	return out
}

// cpuReads are a cumulative CPU figure (seconds) read every 100 ms.
type cpuReads struct {
	mu   sync.Mutex
	at   []time.Time
	secs []float64
	done chan struct{}
	wg   sync.WaitGroup
}

func followCPU(pid int) *cpuReads {
	return follow(func() (float64, bool) { return procCPU(pid), true })
}

// followOutside reads the host's busy CPU (/proc/stat: user nice system
// irq softirq steal) minus this process and all its descendants but skip
// (the burner, outside on purpose): other work.
func followOutside(skip int) *cpuReads {
	return follow(func() (float64, bool) {
		data, err := os.ReadFile("/proc/stat")
		if err != nil {
			return 0, false
		}
		f := strings.Fields(strings.SplitN(string(data), "\n", 2)[0])
		host := 0.0
		for _, i := range []int{1, 2, 3, 6, 7, 8} {
			v, _ := strconv.ParseFloat(f[i], 64)
			host += v / 100 // USER_HZ
		}
		tree := 0.0
		for _, pid := range append([]int{os.Getpid()}, descendants(os.Getpid())...) {
			if pid != skip {
				tree += procCPU(pid)
			}
		}
		return host - tree, true
	})
}

// follow records read() every 100 ms until stop.
func follow(read func() (float64, bool)) *cpuReads {
	r := &cpuReads{done: make(chan struct{})}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		tk := time.NewTicker(100 * time.Millisecond)
		defer tk.Stop()
		for {
			if v, ok := read(); ok {
				r.mu.Lock()
				r.at, r.secs = append(r.at, time.Now()), append(r.secs, v)
				r.mu.Unlock()
			}
			select {
			case <-r.done:
				return
			case <-tk.C:
			}
		}
	}()
	return r
}

func (r *cpuReads) stop() *cpuReads { close(r.done); r.wg.Wait(); return r }

// descendants lists pid's children, theirs and so on.
func descendants(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", p))
		for _, task := range tasks {
			data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", p, task.Name()))
			for _, c := range strings.Fields(string(data)) {
				if n, err := strconv.Atoi(c); err == nil {
					out, queue = append(out, n), append(queue, n)
				}
			}
		}
	}
	return out
}

// procCPU is a process's utime+stime in seconds (0 once it is gone).
func procCPU(pid int) float64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // USER_HZ
}

// coresOver is the process's mean cores over the intervals, its counter
// interpolated linearly between reads.
func (r *cpuReads) coresOver(iv [][2]time.Time) float64 {
	secs := 0.0
	for _, v := range iv {
		secs += v[1].Sub(v[0]).Seconds()
	}
	if secs == 0 {
		return 0
	}
	return cpuOver(r.at, r.secs, iv) / secs
}

// cpuOver is a cumulative CPU counter's growth over the intervals, read at
// times at (ascending) and interpolated linearly between reads (held at
// the last read past it).
func cpuOver(at []time.Time, secs []float64, iv [][2]time.Time) float64 {
	value := func(t time.Time) float64 {
		for i := 1; i < len(at); i++ {
			if !at[i].Before(t) {
				f := t.Sub(at[i-1]).Seconds() / at[i].Sub(at[i-1]).Seconds()
				return secs[i-1] + f*(secs[i]-secs[i-1])
			}
		}
		return secs[len(secs)-1]
	}
	cpu := 0.0
	for _, v := range iv {
		cpu += value(v[1]) - value(v[0])
	}
	return cpu
}
