package backend

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ProxyActor names the actor that stands for the docker-proxy processes
// of a network's published ports.
const ProxyActor = "docker-proxy"

// ProxyPIDs lists the docker-proxy processes (Docker's userland proxy,
// one per published port and address family) under procRoot whose
// command line carries one of hostPorts as its -host-port: the proxies
// of one network's published ports, which carry the harness's calls into
// its containers. Host ports are unique on the machine, so other runs'
// proxies are not counted. Empty when the engine runs no userland proxy
// (userland-proxy=false: the kernel's NAT forwards, and its cost is the
// host's) or its processes are in another PID namespace.
func ProxyPIDs(procRoot string, hostPorts map[int]bool) []int {
	if len(hostPorts) == 0 {
		return nil
	}
	entries, err := os.ReadDir(procRoot)
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(procRoot, e.Name(), "cmdline"))
		if err != nil || len(data) == 0 {
			continue
		}
		args := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
		if filepath.Base(args[0]) != "docker-proxy" {
			continue
		}
		for i := 1; i+1 < len(args); i++ {
			if args[i] == "-host-port" || args[i] == "--host-port" {
				if p, err := strconv.Atoi(args[i+1]); err == nil && hostPorts[p] {
					out = append(out, pid)
				}
				break
			}
		}
	}
	sort.Ints(out)
	return out
}
