//go:build linux

package collect

import (
	"bufio"
	"math"
	"os/exec"
	"testing"

	"github.com/lnbench/lnbench/usage"
)

// TestTreeCountsItsWaitedForChildren checks the CPU of a process tree
// whose children have exited against the kernel's own account of it: a
// shell runs a CPU-bound pipeline, waits for it, then sleeps; read during
// the sleep, the tree (the shell alone by then) must hold the pipeline's
// CPU, which the kernel's rusage of the shell, given to this test when the
// shell is waited for, also holds. A collector reading only the live
// processes' own utime/stime reads about zero: the pipeline's CPU would
// count as other processes' (as Core Lightning's bitcoin-cli calls did).
func TestTreeCountsItsWaitedForChildren(t *testing.T) {
	cmd := exec.Command("sh", "-c", `head -c 150000000 /dev/zero | sha256sum >/dev/null; echo done; read x`)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "done\n" {
		cmd.Process.Kill()
		t.Fatalf("the shell said %q: %v", line, err)
	}
	var c Collector
	var tree, alone usage.Sample
	if err := c.readProcTree(cmd.Process.Pid, true, &tree); err != nil {
		t.Fatal(err)
	}
	if err := c.readProcTree(cmd.Process.Pid, false, &alone); err != nil {
		t.Fatal(err)
	}
	stdin.Write([]byte("\n"))
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	kernel := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	if kernel < 0.05 {
		t.Fatalf("the pipeline used %.3f s of CPU: too little to tell", kernel)
	}
	t.Logf("kernel %.3f s, tree %.3f s, the shell's own %.3f s", kernel, tree.CPUSeconds(), alone.CPUSeconds())
	// Clock ticks are 10 ms; the shell's read after the sample costs nothing.
	if math.Abs(tree.CPUSeconds()-kernel) > 0.03 {
		t.Errorf("the tree read %.3f s of CPU, the kernel says %.3f s", tree.CPUSeconds(), kernel)
	}
	if alone.CPUSeconds() > kernel/2 {
		t.Errorf("the shell alone read %.3f s: its children's CPU should not be its own", alone.CPUSeconds())
	}
}
