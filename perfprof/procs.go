package perfprof

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Tree lists root and all its descendants (children, grandchildren, …)
// from /proc, root first. It is read anew for every profile: lightningd
// starts a channeld per peer, and plugins come and go.
func Tree(procRoot string, root int) ([]int, error) {
	if _, err := os.Stat(filepath.Join(procRoot, strconv.Itoa(root))); err != nil {
		return nil, fmt.Errorf("process %d is not running", root)
	}
	parents, err := parentMap(procRoot)
	if err != nil {
		return nil, err
	}
	children := map[int][]int{}
	for pid, ppid := range parents {
		children[ppid] = append(children[ppid], pid)
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		kids := children[out[i]]
		sort.Ints(kids)
		out = append(out, kids...)
	}
	return out, nil
}

// parentMap reads every process's parent from /proc/PID/stat.
func parentMap(procRoot string) (map[int]int, error) {
	ents, err := os.ReadDir(procRoot)
	if err != nil {
		return nil, err
	}
	out := map[int]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		// A zombie (Z) or dying process (X) runs no code: nothing to profile,
		// and where PID 1 does not reap, dead trees would pile up under names
		// FindComm looks for.
		if _, state, ppid, ok := readStat(procRoot, pid); ok && state != "Z" && state != "X" {
			out[pid] = ppid
		}
	}
	return out, nil
}

// OlderThan keeps pids[0] (the root) and the processes started at least
// age ago.
func OlderThan(procRoot string, pids []int, age time.Duration) []int {
	if len(pids) == 0 {
		return pids
	}
	now := bootClock()
	out := pids[:1:1]
	for _, pid := range pids[1:] {
		if now-startTime(procRoot, pid) >= age.Seconds() {
			out = append(out, pid)
		}
	}
	return out
}

// startTime is when a process started, in boot-clock seconds; +Inf when
// it is gone.
func startTime(procRoot string, pid int) float64 {
	_, f, ok := statFields(procRoot, pid)
	if !ok || len(f) < 20 {
		return math.Inf(1)
	}
	// Field 22, starttime, counts clock ticks since boot: 100 a second on
	// Linux whatever the kernel's HZ (USER_HZ).
	ticks, err := strconv.ParseFloat(f[19], 64)
	if err != nil {
		return math.Inf(1)
	}
	return ticks / 100
}

// bootClock is CLOCK_BOOTTIME in seconds: perf's sample times (-k
// boottime) and /proc's process start times count from boot.
func bootClock() float64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		return float64(time.Now().UnixNano()) / 1e9 // not reached on Linux
	}
	return float64(ts.Sec) + float64(ts.Nsec)/1e9
}

// statFields reads /proc/PID/stat ("pid (comm) S ppid …"): the comm and
// the fields after it, state first (field 3). The comm may hold spaces
// and parentheses, so the split is at the last ')'. ok is false when the
// process is gone or the file is torn.
func statFields(procRoot string, pid int) (comm string, fields []string, ok bool) {
	data, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return "", nil, false // gone meanwhile
	}
	s := string(data)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", nil, false
	}
	return s[open+1 : end], strings.Fields(s[end+1:]), true
}

// readStat returns comm, state and ppid from /proc/PID/stat.
func readStat(procRoot string, pid int) (comm, state string, ppid int, ok bool) {
	comm, f, ok := statFields(procRoot, pid)
	if !ok || len(f) < 2 {
		return "", "", 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return comm, f[0], ppid, err == nil
}

// ProcessName is what a process is called in profiles: its argv[0]'s base
// name (e.g. "lightning_channeld", which the kernel's 15-byte comm cuts to
// "lightning_chann"), else its comm; "" when it is gone.
func ProcessName(procRoot string, pid int) string {
	data, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "cmdline"))
	if err == nil {
		if arg0, _, _ := bytes.Cut(data, []byte{0}); len(arg0) > 0 {
			return filepath.Base(string(arg0))
		}
	}
	comm, _, _, _ := readStat(procRoot, pid) // kernel threads and zombies have no cmdline
	return comm
}

// FindComm finds the process whose comm is name and whose parent's is not
// (the root of a tree such as lightningd and its children). Several roots
// are an error: the caller must pick with a PID.
func FindComm(procRoot, name string) (int, error) {
	parents, err := parentMap(procRoot)
	if err != nil {
		return 0, err
	}
	comm := func(pid int) string { c, _, _, _ := readStat(procRoot, pid); return c }
	want := name
	if len(want) > 15 {
		want = want[:15] // the kernel keeps 15 bytes of a comm
	}
	var found []int
	for pid, ppid := range parents {
		if comm(pid) == want && comm(ppid) != want {
			found = append(found, pid)
		}
	}
	sort.Ints(found)
	switch len(found) {
	case 0:
		return 0, fmt.Errorf("no process named %q is running", name)
	case 1:
		return found[0], nil
	}
	return 0, fmt.Errorf("%d processes named %q are running (PIDs %v): pass --pid or --pidfile", len(found), name, found)
}
