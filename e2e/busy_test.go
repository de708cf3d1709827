//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lnbench/lnbench/cost"
	"github.com/lnbench/lnbench/result"
	"github.com/lnbench/lnbench/usage"
)

// TestBusyMachineGuard runs a small local AlicePaysBob twice: beside a
// CPU burner (a shell spinning, started before the run and killed after)
// the case's outside CPU is over the threshold and the report says the
// machine was busy; without it, no such warning. The outside figure is
// cross-checked against the burner's own /proc/<pid>/stat read here over
// the same measured intervals, a reading lnbench did not make.
func TestBusyMachineGuard(t *testing.T) {
	binaries(t)
	scen := filepath.Join(t.TempDir(), "busy.yml")
	os.WriteFile(scen, []byte(`name: Busy
topology: AlicePaysBob
params: {Concurrency: [5], TotalPayments: [100]}
job: {WarmupCount: 1, IterationCount: 3}
`), 0o644)

	// The machine may be shared: other load adds to the burner's (the
	// upper bound below) and makes the "quiet" run rightly busy, so both
	// wait for a quiet machine first. The busy flag and the lower bound
	// hold on any machine.
	quiet := waitQuiet(t)
	// Beside a burner.
	burner := exec.Command("sh", "-c", "while :; do :; done")
	if err := burner.Start(); err != nil {
		t.Fatal(err)
	}
	stopBurner := func() { burner.Process.Kill(); burner.Wait() }
	t.Cleanup(stopBurner)
	reads := followCPU(burner.Process.Pid)
	dir := runCLI(t, "run", scen)
	burnt := reads.stop()
	stopBurner()
	o, md := outsideOf(t, dir)
	burnerCores := burnt.coresOver(hostIntervals(t, dir))
	t.Logf("burner run: lnbench outside %.3f cores (%.0f%% of %g; host %.2f s − run %.2f s over %.2f s); burner's own stat over the same intervals %.3f cores",
		o.Cores, 100*o.HostShare, o.HostCores, o.HostCPUSeconds, o.RunCPUSeconds, o.Seconds, burnerCores)
	if !o.Busy || !strings.Contains(md, "busy machine: other processes used") {
		t.Errorf("burner beside the run: busy %v, summary.md warns: %v", o.Busy, strings.Contains(md, "busy machine:"))
	}
	// Outside is the burner plus whatever else ran: never much below it,
	// and on a quiet machine not much above it.
	if o.Cores < burnerCores-0.1 || quiet && o.Cores > burnerCores+0.3 {
		t.Errorf("outside %.3f cores vs the burner's own %.3f: they should agree", o.Cores, burnerCores)
	}
	if !quiet {
		t.Logf("the machine was busy with other work before the run: outside over the burner (%.2f cores) not checked", o.Cores-burnerCores)
	}

	// Quiet.
	if !waitQuiet(t) {
		t.Skip("the machine stayed busy with other work for 5 minutes: no quiet run to test")
	}
	dir = runCLI(t, "run", scen)
	o, md = outsideOf(t, dir)
	t.Logf("quiet run: lnbench outside %.3f cores (%.0f%% of %g; host %.2f s − run %.2f s over %.2f s)",
		o.Cores, 100*o.HostShare, o.HostCores, o.HostCPUSeconds, o.RunCPUSeconds, o.Seconds)
	if o.Busy || strings.Contains(md, "busy machine:") {
		t.Errorf("quiet run flagged busy (%.3f cores outside): is something else running here?", o.Cores)
	}
}

// waitQuiet waits until the host's busy CPU (/proc/stat, read here) stays
// under 0.15 cores for 3 s; false after 5 minutes of other work.
func waitQuiet(t *testing.T) bool {
	t.Helper()
	busy := func() float64 {
		data, _ := os.ReadFile("/proc/stat")
		f := strings.Fields(strings.SplitN(string(data), "\n", 2)[0])
		total := 0.0
		for _, i := range []int{1, 2, 3, 6, 7, 8} { // user nice system irq softirq steal
			v, _ := strconv.ParseFloat(f[i], 64)
			total += v / 100
		}
		return total
	}
	var last float64
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		b0 := busy()
		time.Sleep(3 * time.Second)
		if last = (busy() - b0) / 3; last < 0.15 {
			return true
		}
	}
	t.Logf("the machine stayed busy with other work (%.2f cores in the last 3 s) for 5 minutes", last)
	return false
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

// cpuReads are one process's utime+stime (seconds) read every 100 ms.
type cpuReads struct {
	mu   sync.Mutex
	at   []time.Time
	secs []float64
	done chan struct{}
	wg   sync.WaitGroup
}

func followCPU(pid int) *cpuReads {
	r := &cpuReads{done: make(chan struct{})}
	read := func() {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
		ut, _ := strconv.ParseFloat(f[11], 64)
		st, _ := strconv.ParseFloat(f[12], 64)
		r.mu.Lock()
		r.at, r.secs = append(r.at, time.Now()), append(r.secs, (ut+st)/100) // USER_HZ
		r.mu.Unlock()
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		tk := time.NewTicker(100 * time.Millisecond)
		defer tk.Stop()
		for {
			read()
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

// coresOver is the process's mean cores over the intervals, its counter
// interpolated linearly between reads.
func (r *cpuReads) coresOver(iv [][2]time.Time) float64 {
	at := func(t time.Time) float64 {
		for i := 1; i < len(r.at); i++ {
			if !r.at[i].Before(t) {
				f := t.Sub(r.at[i-1]).Seconds() / r.at[i].Sub(r.at[i-1]).Seconds()
				return r.secs[i-1] + f*(r.secs[i]-r.secs[i-1])
			}
		}
		return r.secs[len(r.secs)-1]
	}
	cpu, secs := 0.0, 0.0
	for _, v := range iv {
		cpu += at(v[1]) - at(v[0])
		secs += v[1].Sub(v[0]).Seconds()
	}
	if secs == 0 {
		return 0
	}
	return cpu / secs
}
