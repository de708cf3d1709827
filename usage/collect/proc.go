package collect

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lnbench/lnbench/usage"
)

// The /proc files of a sample (stat, status, io, net/dev and
// task/*/children) are parsed here by hand, not with
// github.com/prometheus/procfs, though it is in the module for Host: procfs
// opens every file with os.Open (two fcntl pairs and an epoll_ctl the
// kernel refuses, see readFile) and its FS.Proc stats the pid's folder
// first. Reading one process's stat, status and io took 31 system calls
// through procfs against 12 through readFile (strace -c over 1,000 reads
// of a test binary's own process, v0.6.0), on the harness's CPU while it
// measures, at about 150 files a second. procfs has no reader for
// task/*/children either. Host reads /proc/stat through procfs: one file
// a sampling round, not one per actor.

// readProcs fills s with the sum of pids, each read alone (no
// descendants); an error only when none of them could be read.
func (c *Collector) readProcs(pids []int, s *usage.Sample) error {
	s.Source = usage.SourceProc
	read := 0
	var first error
	for _, p := range pids {
		var one usage.Sample
		if err := c.readProc(p, false, &one); err != nil {
			first = cmp.Or(first, err)
			continue
		}
		read++
		addProc(s, one)
	}
	if read == 0 {
		return first
	}
	if s.IOSource == "" {
		s.IOSource = usage.IONone
	}
	return nil
}

// readProcTree fills s from /proc/<pid> and, when withChildren, every
// descendant's figures added in (a node that spawns helpers pays for them).
// Peak RSS is the largest single process's high-water mark.
func (c *Collector) readProcTree(pid int, withChildren bool, s *usage.Sample) error {
	s.Source = usage.SourceProc
	pids := []int{pid}
	if withChildren {
		pids = append(pids, c.descendants(pid)...)
	}
	for i, p := range pids {
		var one usage.Sample
		// A child that exited and was waited for leaves the tree, and its
		// CPU moves into its parent's cutime/cstime: counting those keeps
		// the tree's counter whole and never going backwards. Core
		// Lightning's bcli runs bitcoin-cli once per call; without this
		// their CPU read as other processes'.
		if err := c.readProc(p, withChildren, &one); err != nil {
			if i == 0 {
				return err
			}
			continue // a child that exited between listing and reading
		}
		addProc(s, one)
	}
	if s.IOSource == "" {
		s.IOSource = usage.IONone // no process's io was readable
	}
	return nil
}

// readProcIO fills s's block-I/O figures from /proc/<pid>/io of pids,
// summed (IOProc), or marks them IONone when no pid's io is readable
// (it needs ptrace access to the process). It is the fallback for actors
// whose cgroup (or engine) lists no device.
func (c *Collector) readProcIO(pids []int, s *usage.Sample) {
	s.ReadBytes, s.WriteBytes, s.ReadOps, s.WriteOps = 0, 0, 0, 0
	s.IOSource = usage.IONone
	for _, p := range pids {
		io, err := readColonKV(filepath.Join(c.procRoot(), strconv.Itoa(p), "io"))
		if err != nil {
			continue
		}
		s.IOSource = usage.IOProc
		s.ReadBytes += io["read_bytes"]
		s.WriteBytes += io["write_bytes"]
		s.ReadOps += io["syscr"]
		s.WriteOps += io["syscw"]
	}
}

// readProc reads one process: stat (CPU), status (RSS) and io. I/O
// operations are read/write system calls (syscr/syscw): /proc has no
// block-request count per process. withReaped adds the CPU of the
// children it has waited for (cutime, cstime).
func (c *Collector) readProc(pid int, withReaped bool, s *usage.Sample) error {
	dir := filepath.Join(c.procRoot(), strconv.Itoa(pid))
	stat, err := readFile(filepath.Join(dir, "stat"))
	if err != nil {
		return err
	}
	// The command name may hold spaces and parentheses: fields start after the last ')'.
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return fmt.Errorf("%s/stat: unexpected %q", dir, stat)
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return fmt.Errorf("%s/stat: too few fields", dir)
	}
	// After the name: state(3) … utime(14) stime(15) cutime(16)
	// cstime(17), so f[11] to f[14].
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	if withReaped && len(f) >= 15 {
		cut, _ := strconv.ParseInt(f[13], 10, 64)
		cst, _ := strconv.ParseInt(f[14], 10, 64)
		ut, st = ut+cut, st+cst
	}
	s.CPUUserSeconds, s.CPUSysSeconds = float64(ut)/userHZ, float64(st)/userHZ
	s.RSSBytes, s.RSSPeakBytes = readStatusKB(filepath.Join(dir, "status"))
	// io needs ptrace access; without it the other figures stand.
	if io, err := readColonKV(filepath.Join(dir, "io")); err == nil {
		s.ReadBytes, s.WriteBytes = io["read_bytes"], io["write_bytes"]
		s.ReadOps, s.WriteOps = io["syscr"], io["syscw"]
		s.IOSource = usage.IOProc
	}
	return nil
}

// readStatusKB reads VmRSS and VmHWM (kB) from a status file, in bytes.
func readStatusKB(path string) (rss, hwm int64) {
	kv, err := readColonKV(path)
	if err != nil {
		return 0, 0
	}
	return kv["VmRSS"] * 1024, kv["VmHWM"] * 1024
}

// readColonKV reads "Key: value [unit]" lines (status, io).
func readColonKV(path string) (map[string]int64, error) { return readPairs(path, ":") }

// descendants lists pid's children, grandchildren and so on, from
// /proc/<pid>/task/<tid>/children.
func (c *Collector) descendants(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 && len(out) < 4096 {
		p := queue[0]
		queue = queue[1:]
		tasks, _ := os.ReadDir(filepath.Join(c.procRoot(), strconv.Itoa(p), "task"))
		for _, t := range tasks {
			data, err := readFile(filepath.Join(c.procRoot(), strconv.Itoa(p), "task", t.Name(), "children"))
			if err != nil {
				continue
			}
			for _, f := range strings.Fields(string(data)) {
				if n, err := strconv.Atoi(f); err == nil {
					out = append(out, n)
					queue = append(queue, n)
				}
			}
		}
	}
	return out
}

// readNetDev sums received and sent bytes over every interface but the
// loopback of a /proc/<pid>/net/dev file (the process's network namespace).
func readNetDev(path string) (rx, tx int64, err error) {
	data, err := readFile(path)
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(name) == "lo" {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 9 {
			continue // the two header lines
		}
		r, err1 := strconv.ParseInt(f[0], 10, 64)
		t, err2 := strconv.ParseInt(f[8], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		rx += r
		tx += t
	}
	return rx, tx, nil
}

// addProc adds one process's figures to an actor's sample: counters and
// RSS summed, the peak the largest single process's, and proc-io as the
// I/O source once any process's io was readable.
func addProc(s *usage.Sample, one usage.Sample) {
	s.CPUUserSeconds += one.CPUUserSeconds
	s.CPUSysSeconds += one.CPUSysSeconds
	s.RSSBytes += one.RSSBytes
	s.RSSPeakBytes = max(s.RSSPeakBytes, one.RSSPeakBytes)
	s.ReadBytes += one.ReadBytes
	s.WriteBytes += one.WriteBytes
	s.ReadOps += one.ReadOps
	s.WriteOps += one.WriteOps
	if one.IOSource == usage.IOProc {
		s.IOSource = usage.IOProc
	}
}
