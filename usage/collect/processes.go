package collect

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/usage"
)

// Processes lists an actor's processes as the host sees them: the listed
// ones of a set (Actor.PIDs), every member of its cgroup for a container,
// else the process and its descendants (the harness alone: its children
// are the local nodes).
func (c *Collector) Processes(a backend.Actor) []int {
	if len(a.PIDs) > 0 {
		return a.PIDs
	}
	if a.CgroupPath != "" || (a.ContainerID != "" && a.PID > 0) {
		root := c.cgroupRoot()
		var dir string
		if CgroupV2(root) {
			path := a.CgroupPath
			if path == "" {
				path = c.procCgroups(a.PID)[""]
			}
			dir = filepath.Join(root, path)
		} else {
			path, ok := c.procCgroups(a.PID)["cpuacct"]
			if !ok {
				path = a.CgroupPath
			}
			dir = filepath.Join(root, "cpuacct", path)
		}
		if pids := readPids(filepath.Join(dir, "cgroup.procs")); len(pids) > 0 {
			return pids
		}
	}
	if a.PID <= 0 {
		return nil
	}
	if a.Role == usage.RoleHarness {
		return []int{a.PID}
	}
	return append([]int{a.PID}, c.descendants(a.PID)...)
}

func readPids(path string) []int {
	data, err := readFile(path)
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(data)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}
