package backend

import (
	"os"
	"strconv"
	"strings"
)

// CgroupOf reads /proc/<pid>/cgroup and returns the process's cgroup path
// (the cpuacct hierarchy's on cgroup v1, the unified one on v2), but only if
// the path names the container: a pid from a remote engine's namespace
// could be any local process. "" when unknown.
func CgroupOf(pid int, containerID string) string {
	if pid <= 0 {
		return ""
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		return ""
	}
	var unified, cpuacct string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[1] == "" {
			unified = f[2]
		}
		for _, c := range strings.Split(f[1], ",") {
			if c == "cpuacct" {
				cpuacct = f[2]
			}
		}
	}
	path := cpuacct
	if path == "" {
		path = unified
	}
	if containerID == "" || !strings.Contains(path, containerID) {
		return ""
	}
	return path
}
