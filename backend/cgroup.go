package backend

import (
	"os"
	"strconv"
	"strings"
)

// ProcCgroups is a process's place in each cgroup hierarchy as
// /proc/<pid>/cgroup lists it: each v1 controller (or named hierarchy,
// "name=systemd") to the path of the process's cgroup in it, and "" to the
// path in the unified (v2) hierarchy. A v1 host may place a container
// differently per controller. The one parser of that file: the backends
// (CgroupOf) and package usage/collect both read it so. Not procfs's
// Proc.Cgroups: at the module's v0.6.0 it reads the real /proc whatever
// the FS's root (a fake root in tests is ignored) and keeps its parser
// unexported.
type ProcCgroups map[string]string

// ParseProcCgroups parses the "hierarchy-id:controller,…:path" lines of
// /proc/<pid>/cgroup; lines without three fields are skipped. A path may
// hold colons: it is everything after the second one.
func ParseProcCgroups(data []byte) ProcCgroups {
	out := ProcCgroups{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[1] == "" {
			out[""] = f[2]
			continue
		}
		for _, ctl := range strings.Split(f[1], ",") {
			out[ctl] = f[2]
		}
	}
	return out
}

// Accounting is the path of the cgroup that accounts the process's CPU:
// the cpuacct hierarchy's on cgroup v1, else the unified one's; "" when
// neither is listed.
func (c ProcCgroups) Accounting() string {
	if p, ok := c["cpuacct"]; ok && p != "" {
		return p
	}
	return c[""]
}

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
	return containerCgroup(ParseProcCgroups(data), containerID)
}

// containerCgroup is cg's accounting path if it names the container, else "".
func containerCgroup(cg ProcCgroups, containerID string) string {
	path := cg.Accounting()
	if containerID == "" || !strings.Contains(path, containerID) {
		return ""
	}
	return path
}
