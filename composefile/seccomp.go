package composefile

import (
	"encoding/json"

	"github.com/docker/docker/profiles/seccomp"
	"github.com/opencontainers/runtime-spec/specs-go"
)

// PerfSeccompFile is the seccomp profile of CLN containers, written beside
// the compose file.
const PerfSeccompFile = "seccomp-perf.json"

// PerfSeccomp is Docker's default seccomp profile plus perf_event_open, so
// that perf samples a CLN container's own processes. Docker admits that
// syscall only to containers holding CAP_PERFMON (which Debian's engine
// 20.10 does not know) or CAP_SYS_ADMIN (far too much); with this profile
// the container keeps no capability at all, and the kernel's
// perf_event_paranoid still limits perf to the caller's own processes,
// user space only.
func PerfSeccomp() ([]byte, error) {
	p := seccomp.DefaultProfile()
	p.Syscalls = append(p.Syscalls, &seccomp.Syscall{
		LinuxSyscall: specs.LinuxSyscall{Names: []string{"perf_event_open"}, Action: specs.ActAllow},
		Comment:      "lnbench: perf samples of this container's own processes (CLN flame graphs)",
	})
	return json.MarshalIndent(p, "", "  ")
}
