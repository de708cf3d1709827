package syncs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCountsAChildsSyncs runs a real process that makes a known number of
// fdatasync and fsync calls and checks the counter saw exactly those. It
// skips only where the kernel refuses tracepoint counters (no root).
func TestCountsAChildsSyncs(t *testing.T) {
	ids, err := IDs()
	if err != nil {
		t.Skip(err)
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 to make syncs")
	}
	file := filepath.Join(t.TempDir(), "f")
	// Wait for a line on stdin, make 30 fdatasync + 7 fsync calls, exit.
	cmd := exec.Command(py, "-c", `import os,sys
f=os.open(sys.argv[1],os.O_WRONLY|os.O_CREAT)
sys.stdin.readline()
for i in range(30):
  os.write(f,b'x'*4096); os.fdatasync(f)
for i in range(7): os.fsync(f)
`, file)
	in, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // let the interpreter start its threads
	c, err := Attach(ids, []int{cmd.Process.Pid})
	if err != nil {
		if strings.Contains(err.Error(), "perf_event_open") && os.Geteuid() != 0 {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	defer c.Close()
	if n, _ := c.Count(); n != 0 {
		t.Fatalf("before: %d syncs", n)
	}
	in.Write([]byte("go\n"))
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Count(); err != nil || n != 37 {
		t.Fatalf("counted %d syncs (%v), want 37", n, err)
	}
}
