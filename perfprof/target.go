package perfprof

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// PID is a fixed target.
func PID(pid int) func() (int, error) {
	return func() (int, error) {
		if err := syscall.Kill(pid, 0); err != nil && err != syscall.EPERM {
			return 0, fmt.Errorf("process %d is not running", pid)
		}
		return pid, nil
	}
}

// Pidfile reads the target from a file at each request (lightningd writes
// <lightning-dir>/lightningd-<network>.pid), so a restart is followed.
func Pidfile(path string) func() (int, error) {
	return func() (int, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0, fmt.Errorf("pidfile: %v", err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 {
			return 0, fmt.Errorf("pidfile %s: %q is not a PID", path, strings.TrimSpace(string(b)))
		}
		return PID(pid)()
	}
}

// Comm finds the target by process name at each request (see FindComm).
func Comm(procRoot, name string) func() (int, error) {
	return func() (int, error) { return FindComm(procRoot, name) }
}
