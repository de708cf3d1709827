//go:build linux

package collect

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/usage"
)

// tmpfsMagic is statfs's f_type of tmpfs, which sends nothing to storage.
const tmpfsMagic = 0x01021994

// TestWrittenBytesMatchAKnownWrite checks the collector's written bytes
// against a write whose size is known without lnbench: dd writes 1 MiB
// with O_SYNC (each 4 KiB block reaches the disk before the next) in a
// process the test starts, which then waits. The kernel's own count of
// what that process sent to storage (/proc/<pid>/io, read here by the
// collector over the process and its children) must be that 1 MiB; a
// collector reading zero or double would fail.
func TestWrittenBytesMatchAKnownWrite(t *testing.T) {
	if _, err := os.Stat("/proc/self/io"); err != nil {
		t.Skip("no per-process I/O accounting (CONFIG_TASK_IO_ACCOUNTING) on this kernel")
	}
	dir := t.TempDir()
	// The test's own folder on a disk when TMPDIR is a RAM disk.
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err == nil && st.Type == tmpfsMagic {
		dir, _ = os.MkdirTemp(".", "procio-")
		t.Cleanup(func() { os.RemoveAll(dir) })
	}
	const blocks, size = 256, 4096
	cmd := exec.Command("sh", "-c", `dd if=/dev/zero of="$1" bs=4096 count=256 oflag=sync 2>/dev/null && echo written && exec sleep 60`, "sh", filepath.Join(dir, "f"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "written\n" {
		t.Fatalf("dd: %q %v", line, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "f")); err != nil || fi.Size() != blocks*size {
		t.Fatalf("dd wrote %v (%v)", fi, err)
	}

	s, err := Default.Sample(context.Background(), backend.Actor{Name: "writer", Role: usage.RoleNode, PID: cmd.Process.Pid})
	if err != nil {
		t.Fatal(err)
	}
	if s.IOSource != usage.IOProc {
		t.Fatalf("source %q, want %q", s.IOSource, usage.IOProc)
	}
	// Exact on ext4 (measured: 1048576 of 1048576); a file system may
	// add a few pages of its own for the process.
	if s.WriteBytes < blocks*size || s.WriteBytes > blocks*size+64<<10 {
		t.Fatalf("collector read %d written bytes, dd wrote %d", s.WriteBytes, blocks*size)
	}
	// The fallback path (pids of a container whose cgroup lists no device) reads the same.
	var fb usage.Sample
	Default.readProcIO([]int{cmd.Process.Pid}, &fb)
	if fb.IOSource != usage.IOProc || fb.WriteBytes != s.WriteBytes {
		t.Fatalf("fallback: %+v", fb)
	}
}
