// Package envinfo describes the machine a benchmark ran on, for the block
// printed above every results table.
package envinfo

import (
	"bufio"
	"os"
	"runtime"
	"strings"
	"syscall"
)

// Env is the machine and toolchain description.
type Env struct {
	OS        string `json:"os"`
	Kernel    string `json:"kernel"`
	CPU       string `json:"cpu"`
	Cores     int    `json:"cores"`
	MemoryMiB int64  `json:"memory_mib"`
	GoVersion string `json:"go_version"`
	Hostname  string `json:"-"` // not exported to artifacts: not needed to reproduce
}

// Collect reads the environment of this machine.
func Collect() Env {
	e := Env{OS: osRelease(), Kernel: kernel(), CPU: cpuModel(), Cores: runtime.NumCPU(), GoVersion: runtime.Version()}
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) == nil {
		e.MemoryMiB = int64(si.Totalram) * int64(si.Unit) >> 20
	}
	e.Hostname, _ = os.Hostname()
	return e
}

func osRelease() string {
	f, err := os.Open("/etc/os-release")
	if err != nil {
		return runtime.GOOS
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "PRETTY_NAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return runtime.GOOS
}

func kernel() string {
	var u syscall.Utsname
	if syscall.Uname(&u) != nil {
		return ""
	}
	var b strings.Builder
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		b.WriteByte(byte(c))
	}
	return b.String()
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
