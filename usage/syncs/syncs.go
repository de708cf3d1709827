// Package syncs counts fsync and fdatasync calls of running processes with
// the kernel's syscall tracepoints (syscalls:sys_enter_fsync and
// sys_enter_fdatasync, as `perf stat -e` does), read directly through
// perf_event_open: a counter per thread, inherited by threads created
// later, read on demand, so every sample has an exact count and no perf
// process runs beside the nodes.
package syncs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Tracepoints are the events counted.
var Tracepoints = []string{"sys_enter_fsync", "sys_enter_fdatasync"}

var tracefsRoots = []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}

// IDs finds the tracepoints' ids, mounting tracefs at /sys/kernel/tracing
// when no tracing folder is mounted. The error is one line saying why
// syncs cannot be counted here.
func IDs() ([]uint64, error) {
	ids, err := readIDs()
	if err == nil {
		return ids, nil
	}
	if merr := unix.Mount("nodev", tracefsRoots[0], "tracefs", 0, ""); merr != nil {
		return nil, fmt.Errorf("syncs not counted: tracefs is not mounted and mounting it failed (%v); run as root or mount it: mount -t tracefs nodev /sys/kernel/tracing", merr)
	}
	return readIDs()
}

func readIDs() ([]uint64, error) {
	var lastErr error
	for _, root := range tracefsRoots {
		var ids []uint64
		for _, tp := range Tracepoints {
			data, err := os.ReadFile(filepath.Join(root, "events", "syscalls", tp, "id"))
			if err != nil {
				lastErr = err
				break
			}
			id, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
			if err != nil {
				lastErr = err
				break
			}
			ids = append(ids, id)
		}
		if len(ids) == len(Tracepoints) {
			return ids, nil
		}
	}
	return nil, fmt.Errorf("syncs not counted: no syscall tracepoints (%v)", lastErr)
}

// Counter counts the syncs of one actor's processes since Attach.
type Counter struct {
	mu  sync.Mutex
	fds []int
}

// Attach opens a counter on every thread of the given processes. A process
// that exits meanwhile is skipped; no permission is an error naming why.
func Attach(ids []uint64, pids []int) (*Counter, error) {
	c := &Counter{}
	seen := map[int]bool{}
	// Two passes: a thread created by one not yet attached is caught by
	// the second; later threads inherit their creator's counter.
	for pass := 0; pass < 2; pass++ {
		for _, pid := range pids {
			tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
			if err != nil {
				continue
			}
			for _, t := range tasks {
				tid, err := strconv.Atoi(t.Name())
				if err != nil || seen[tid] {
					continue
				}
				seen[tid] = true
				for _, id := range ids {
					fd, err := open(id, tid)
					if errors.Is(err, unix.ESRCH) {
						break // the thread ended
					}
					if err != nil {
						c.Close()
						return nil, fmt.Errorf("syncs not counted: perf_event_open on thread %d: %v (needs root or CAP_PERFMON, and kernel.perf_event_paranoid allowing tracepoints)", tid, err)
					}
					c.fds = append(c.fds, fd)
				}
			}
		}
	}
	if len(c.fds) == 0 {
		return nil, errors.New("syncs not counted: no running thread to attach to")
	}
	return c, nil
}

func open(id uint64, tid int) (int, error) {
	attr := unix.PerfEventAttr{Type: unix.PERF_TYPE_TRACEPOINT, Config: id, Bits: unix.PerfBitInherit}
	attr.Size = uint32(unsafe.Sizeof(attr))
	return unix.PerfEventOpen(&attr, tid, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
}

// Count is the number of syncs since Attach, including those of threads
// that have ended and of threads created since.
func (c *Counter) Count() (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var total int64
	buf := make([]byte, 8)
	for _, fd := range c.fds {
		if _, err := unix.Read(fd, buf); err != nil {
			return total, fmt.Errorf("reading a sync counter: %v", err)
		}
		total += int64(binary.NativeEndian.Uint64(buf))
	}
	return total, nil
}

// Close releases the counters.
func (c *Counter) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, fd := range c.fds {
		unix.Close(fd)
	}
	c.fds = nil
}
