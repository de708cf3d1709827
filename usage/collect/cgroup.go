package collect

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/usage"
)

// userHZ is the unit of cpuacct.stat and /proc/<pid>/stat times. Linux
// fixes USER_HZ at 100 on every architecture the harness runs on.
const userHZ = 100

// noLimit is above any real memory limit: v1 reports "unlimited" as the
// largest page-aligned int64.
const noLimit = 1 << 60

// The cgroup files are parsed by hand, not through
// github.com/containerd/cgroups (not in the module graph): its v2 Stat
// opens every controller's files with os.Open (pids, rdma, hugetlb, swap,
// memory.events: twice the seven files a v2 sample reads here) and still
// reads neither memory.peak nor cpu.max, which a sample needs; its v1 Stat
// reads every subsystem likewise.

// readCgroup fills s from the actor's cgroup, in whichever layout the host
// has.
func (c *Collector) readCgroup(a backend.Actor, s *usage.Sample) error {
	root := c.cgroupRoot()
	if CgroupV2(root) {
		path := a.CgroupPath
		if path == "" {
			path = c.procCgroups(a.PID)[""]
		}
		if path == "" {
			return errors.New("no cgroup path")
		}
		s.Source = usage.SourceCgroupV2
		return readV2(filepath.Join(root, path), s)
	}
	s.Source = usage.SourceCgroupV1
	paths := c.procCgroups(a.PID)
	dir := func(controller string) string {
		p, ok := paths[controller]
		if !ok {
			p = a.CgroupPath
		}
		return filepath.Join(root, controller, p)
	}
	if a.CgroupPath == "" && len(paths) == 0 {
		return errors.New("no cgroup path")
	}
	return readV1(dir, s)
}

// procCgroups is pid's place in each hierarchy, from /proc/<pid>/cgroup
// under the collector's proc root; nil when unreadable.
func (c *Collector) procCgroups(pid int) backend.ProcCgroups {
	if pid <= 0 {
		return nil
	}
	data, err := readFile(filepath.Join(c.procRoot(), strconv.Itoa(pid), "cgroup"))
	if err != nil {
		return nil
	}
	return backend.ParseProcCgroups(data)
}

// readV1 reads the cpuacct, memory, blkio and cpu controllers; dir gives
// the cgroup's folder in one controller.
func readV1(dir func(controller string) string, s *usage.Sample) error {
	cpu := dir("cpuacct")
	var user, sys float64
	u, uerr := readInt(filepath.Join(cpu, "cpuacct.usage_user"))
	y, serr := readInt(filepath.Join(cpu, "cpuacct.usage_sys"))
	if uerr == nil && serr == nil {
		user, sys = float64(u)/1e9, float64(y)/1e9
	} else {
		// Older kernels: only cpuacct.stat, in USER_HZ ticks.
		kv, err := readKV(filepath.Join(cpu, "cpuacct.stat"))
		if err != nil {
			return err
		}
		user, sys = float64(kv["user"])/userHZ, float64(kv["system"])/userHZ
	}
	// The user/system split comes from tick-based accounting, a few
	// percent off the scheduler's exact total (cpuacct.usage): keep the
	// exact total, split in the ticks' proportion.
	if total, err := readInt(filepath.Join(cpu, "cpuacct.usage")); err == nil {
		user, sys = split(float64(total)/1e9, user, sys)
	}
	s.CPUUserSeconds, s.CPUSysSeconds = user, sys
	mem := dir("memory")
	usageBytes, err := readInt(filepath.Join(mem, "memory.usage_in_bytes"))
	if err != nil {
		return err
	}
	// As `docker stats`: usage less the inactive page cache, which the
	// kernel reclaims first.
	st, _ := readKV(filepath.Join(mem, "memory.stat"))
	s.RSSBytes = usageBytes - st["total_inactive_file"]
	s.RSSPeakBytes, _ = readInt(filepath.Join(mem, "memory.max_usage_in_bytes"))
	if lim, err := readInt(filepath.Join(mem, "memory.limit_in_bytes")); err == nil && lim < noLimit {
		s.MemLimitBytes = lim
	}
	blk := dir("blkio")
	var devices bool
	s.ReadBytes, s.WriteBytes, devices = readBlkio(filepath.Join(blk, "blkio.throttle.io_service_bytes"))
	s.ReadOps, s.WriteOps, _ = readBlkio(filepath.Join(blk, "blkio.throttle.io_serviced"))
	if devices {
		s.IOSource = usage.IOCgroup
	}
	cpuDir := dir("cpu")
	quota, qerr := readInt(filepath.Join(cpuDir, "cpu.cfs_quota_us"))
	period, perr := readInt(filepath.Join(cpuDir, "cpu.cfs_period_us"))
	if qerr == nil && perr == nil && quota > 0 && period > 0 {
		s.CPULimit = float64(quota) / float64(period)
	}
	if st, err := readKV(filepath.Join(cpuDir, "cpu.stat")); err == nil {
		s.CPUPeriods, s.CPUThrottled = st["nr_periods"], st["nr_throttled"]
	}
	return nil
}

// readBlkio sums the Read and Write lines over devices of a v1 blkio file
// ("8:0 Read 4096"); devices says it listed any device. A file holding
// only "Total 0" has counted nothing: on some kernels every cgroup's
// throttle counters stay so (the root's too), and the caller falls back
// to the processes' own counters.
func readBlkio(path string) (read, write int64, devices bool) {
	data, err := readFile(path)
	if err != nil {
		return 0, 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		n, _ := strconv.ParseInt(f[2], 10, 64)
		switch f[1] {
		case "Read":
			read += n
			devices = true
		case "Write":
			write += n
			devices = true
		}
	}
	return read, write, devices
}

// readV2 reads the unified hierarchy's cpu, memory and io files in dir.
func readV2(dir string, s *usage.Sample) error {
	cpu, err := readKV(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return err
	}
	s.CPUUserSeconds, s.CPUSysSeconds = float64(cpu["user_usec"])/1e6, float64(cpu["system_usec"])/1e6
	if total, ok := cpu["usage_usec"]; ok {
		s.CPUUserSeconds, s.CPUSysSeconds = split(float64(total)/1e6, s.CPUUserSeconds, s.CPUSysSeconds)
	}
	s.CPUPeriods, s.CPUThrottled = cpu["nr_periods"], cpu["nr_throttled"]
	cur, err := readInt(filepath.Join(dir, "memory.current"))
	if err != nil {
		return err
	}
	st, _ := readKV(filepath.Join(dir, "memory.stat"))
	s.RSSBytes = cur - st["inactive_file"]
	s.RSSPeakBytes, _ = readInt(filepath.Join(dir, "memory.peak")) // kernels ≥ 5.19
	if lim, err := readInt(filepath.Join(dir, "memory.max")); err == nil && lim < noLimit {
		s.MemLimitBytes = lim // "max" does not parse: no limit
	}
	if data, err := readFile(filepath.Join(dir, "io.stat")); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line) // "8:0 rbytes=… wbytes=… rios=… wios=…"
			if len(f) < 2 {
				continue
			}
			s.IOSource = usage.IOCgroup
			for _, kv := range f[1:] {
				k, v, _ := strings.Cut(kv, "=")
				n, _ := strconv.ParseInt(v, 10, 64)
				switch k {
				case "rbytes":
					s.ReadBytes += n
				case "wbytes":
					s.WriteBytes += n
				case "rios":
					s.ReadOps += n
				case "wios":
					s.WriteOps += n
				}
			}
		}
	}
	if data, err := readFile(filepath.Join(dir, "cpu.max")); err == nil {
		f := strings.Fields(string(data))
		if len(f) == 2 && f[0] != "max" {
			q, _ := strconv.ParseFloat(f[0], 64)
			p, _ := strconv.ParseFloat(f[1], 64)
			if p > 0 {
				s.CPULimit = q / p
			}
		}
	}
	return nil
}

func readInt(path string) (int64, error) {
	data, err := readFile(path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(data)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", path, err)
	}
	return n, nil
}

// readKV reads "key value" lines (cpu.stat, memory.stat, cpuacct.stat).
func readKV(path string) (map[string]int64, error) { return readPairs(path, " ") }

// readPairs reads "key<sep>value [unit]" lines into numbers; lines
// without sep or a number are skipped.
func readPairs(path, sep string) (map[string]int64, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), sep)
		if !ok {
			continue
		}
		if fs := strings.Fields(v); len(fs) > 0 {
			if n, err := strconv.ParseInt(fs[0], 10, 64); err == nil {
				out[k] = n
			}
		}
	}
	return out, sc.Err()
}

// split divides an exact CPU total between user and system in the
// proportion of their (approximate) figures; all user when both are 0.
func split(total, user, sys float64) (float64, float64) {
	if user+sys <= 0 {
		return total, 0
	}
	u := total * user / (user + sys)
	return u, total - u
}
