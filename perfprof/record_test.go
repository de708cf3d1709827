package perfprof

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lnbench/lnbench/flamegraph"
)

// startTree starts bin (this test binary, or a copy under another name) as
// a two-process tree (TestMain).
func startTree(t *testing.T, bin string) *exec.Cmd {
	t.Helper()
	c := exec.Command(bin)
	c.Env = append(os.Environ(), "PERFPROF_TREE=2")
	c.Stderr = os.Stderr // a child that would not start says why
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() }) // its child has Pdeathsig
	// Wait until the child has exec'd so the tree is whole before
	// profiling: a child seen between fork and exec can be missing from
	// /proc for a moment (CI and a loop here saw Tree return the root
	// alone just after).
	for i := 0; i < 250; i++ {
		if pids, _ := Tree("/proc", c.Process.Pid); len(pids) == 2 && execed(pids[1]) {
			return c
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the child did not start")
	return nil
}

// execed: the tree's child runs its own program, whose environment (the
// last PERFPROF_TREE wins) says 1; before exec it shows its parent's 2.
func execed(pid int) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	level := ""
	for _, kv := range strings.Split(string(env), "\x00") {
		if v, ok := strings.CutPrefix(kv, "PERFPROF_TREE="); ok {
			level = v
		}
	}
	return level == "1"
}

// copyBinary copies this test binary under a name no other process has.
func copyBinary(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTreeNamesAndFindComm(t *testing.T) {
	bin := copyBinary(t, "tree-"+strconv.Itoa(os.Getpid()))
	c := startTree(t, bin)
	pids, err := Tree("/proc", c.Process.Pid)
	if err != nil || len(pids) != 2 || pids[0] != c.Process.Pid {
		t.Fatalf("%v %v", pids, err)
	}
	if n := ProcessName("/proc", pids[1]); n != filepath.Base(bin) {
		t.Errorf("child named %q", n)
	}
	if got := OlderThan("/proc", pids, time.Hour); len(got) != 1 || got[0] != pids[0] {
		t.Errorf("older than an hour: %v, want the root only", got)
	}
	if got := OlderThan("/proc", pids, 0); len(got) != 2 {
		t.Errorf("older than 0: %v", got)
	}
	if _, err := Tree("/proc", 1<<30); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("gone root: %v", err)
	}
	// The tree's root, not its child of the same name.
	if pid, err := FindComm("/proc", filepath.Base(bin)); pid != c.Process.Pid {
		t.Errorf("FindComm: %d %v, want %d", pid, err, c.Process.Pid)
	}
	// Two trees of that name: FindComm refuses to guess.
	c2 := startTree(t, bin)
	if _, err := FindComm("/proc", filepath.Base(bin)); err == nil || !strings.Contains(err.Error(), "--pid") {
		t.Errorf("FindComm with two roots: %v", err)
	}
	c2.Process.Kill()
	c2.Wait()
	if _, err := FindComm("/proc", "no-such-process-name"); err == nil {
		t.Error("FindComm found a process that does not exist")
	}
}

// gccDemo compiles testdata/demo.c (a process that re-executes itself as
// a child named demo_child, both burning CPU in hash_htlc under
// channel_tick for secs seconds, then exiting).
func gccDemo(t *testing.T, flags ...string) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	out := filepath.Join(t.TempDir(), "demo")
	args := append([]string{"-g", "-o", out, "testdata/demo.c"}, flags...)
	if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %v: %v\n%s", args, err, b)
	}
	return out
}

// runDemo starts the demo for longer than any test needs (a busy machine
// slows perf's start), in its own process group so that stopDemo ends its
// child too, and waits until the child is old enough to be attached (1 s).
func runDemo(t *testing.T, bin string) *exec.Cmd {
	t.Helper()
	c := exec.Command(bin, "60")
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopDemo(c) })
	for i := 0; i < 250; i++ {
		if pids, _ := Tree("/proc", c.Process.Pid); len(pids) == 2 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(1100 * time.Millisecond)
	return c
}

func stopDemo(c *exec.Cmd) {
	syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	c.Wait()
}

// TestRealPerf profiles the demo's two processes with the machine's perf:
// both appear, named by argv[0], with C function names; DWARF unwinding
// of a build without frame pointers still finds channel_tick, the caller
// of the leaf hash_htlc.
func TestRealPerf(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("no perf on this machine")
	}
	for mode, flags := range map[string][]string{"fp": {"-O2", "-fno-omit-frame-pointer"}, "dwarf": {"-O2"}} {
		c := runDemo(t, gccDemo(t, flags...))
		pr := &Profiler{Recorder: Recorder{CallGraph: mode}}
		p, err := pr.Profile(context.Background(), c.Process.Pid, time.Second)
		pr.Close()
		stopDemo(c)
		if err != nil {
			if strings.Contains(err.Error(), "permission denied") {
				t.Skip(err)
			}
			t.Fatal(err)
		}
		if len(p.Mapping) == 0 || filepath.Base(p.Mapping[0].File) != "demo" {
			t.Errorf("%s: first mapping %v, want the demo binary (pprof.s main)", mode, p.Mapping[0].File)
		}
		procs := map[string]bool{}
		for _, s := range p.Sample {
			procs[s.Label["process"][0]+"/"+s.Label["comm"][0]] = true
		}
		if !procs["demo/demo"] || !procs["demo_child/exe"] {
			t.Errorf("%s: process/comm labels %v, want demo/demo and demo_child/exe", mode, procs)
		}
		f, err := flamegraph.FromProfile(p)
		if err != nil {
			t.Fatal(err)
		}
		hot := map[string]int64{}
		for _, s := range f {
			if s.Frames[0] != "demo" && s.Frames[0] != "demo_child" {
				t.Errorf("root frame %q", s.Frames[0])
			}
			for _, fr := range s.Frames {
				hot[fr] += s.Count
			}
		}
		if hot["hash_htlc"] == 0 || hot["main"] == 0 || (mode == "dwarf" && hot["channel_tick"] == 0) {
			t.Errorf("%s: frames %v", mode, hot)
		}
	}
}

// TestShortLivedChildren: a tree whose children live 0.3 s each (as
// bcli's bitcoin-cli calls) is profiled every time, though perf refuses a
// list naming a process that exits before it attaches.
func TestShortLivedChildren(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("no perf")
	}
	c := exec.Command("/bin/sh", "-c", "while :; do sleep 0.3; done")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { c.Process.Kill(); c.Wait() }()
	for i := 0; i < 3; i++ {
		p := &Profiler{Recorder: Recorder{CallGraph: "fp"}}
		_, err := p.Profile(context.Background(), c.Process.Pid, time.Second)
		p.Close()
		if err != nil {
			t.Fatalf("profile %d: %v", i, err)
		}
	}
}

// TestCallGraphAuto compiles a C program with and without frame pointers
// and checks auto picks fp only for the first.
func TestCallGraphAuto(t *testing.T) {
	for flags, want := range map[string]string{"-O2": "dwarf", "-O2 -fno-omit-frame-pointer": "fp", "-O0": "fp"} {
		mode, why, err := CallGraphFor("auto", gccDemo(t, strings.Fields(flags)...))
		if err != nil || mode != want {
			t.Errorf("gcc %s: %s (%s) %v, want %s", flags, mode, why, err, want)
		}
	}
	if mode, why, _ := CallGraphFor("auto", os.Args[0]); mode != "fp" {
		t.Errorf("a Go binary: %s (%s)", mode, why)
	}
	if _, _, err := CallGraphFor("lbr", os.Args[0]); err == nil {
		t.Error("lbr accepted")
	}
}

// TestBackToBackProfilesTileTime: one perf session serves consecutive
// profiles, each starting where the previous ended (nothing is lost while
// perf script reads or the client turns round), and stops when idle.
func TestBackToBackProfilesTileTime(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("no perf")
	}
	c := runDemo(t, gccDemo(t, "-O2", "-fno-omit-frame-pointer"))
	pr := &Profiler{Recorder: Recorder{CallGraph: "fp"}, Linger: 300 * time.Millisecond}
	defer pr.Close()
	var perfPID int
	var end int64
	for i := 0; i < 3; i++ {
		p, err := pr.Profile(context.Background(), c.Process.Pid, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		pr.mu.Lock()
		pid := pr.s.cmd.Process.Pid
		pr.mu.Unlock()
		if i > 0 && pid != perfPID {
			t.Errorf("profile %d: a new perf (%d, was %d)", i, pid, perfPID)
		}
		if gap := time.Duration(p.TimeNanos - end); i > 0 && (gap < -20*time.Millisecond || gap > 20*time.Millisecond) {
			t.Errorf("profile %d starts %v after the previous one's end", i, gap)
		}
		if len(p.Sample) == 0 {
			t.Errorf("profile %d is empty (%v from %v)", i, time.Duration(p.DurationNanos), time.Unix(0, p.TimeNanos).Format("15:04:05.000"))
		}
		perfPID, end = pid, p.TimeNanos+p.DurationNanos
	}
	time.Sleep(time.Second)
	pr.mu.Lock()
	idle := pr.s == nil
	pr.mu.Unlock()
	if !idle {
		t.Error("perf still runs after Linger without a profile")
	}
}

// TestYoungChildIsAttachedLater: a child too young to attach when perf
// starts is attached at a later profile (perf starts again with it).
func TestYoungChildIsAttachedLater(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("no perf")
	}
	c := exec.Command("/bin/sh", "-c", "sleep 60; true") // forks sleep at once
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer stopDemo(c)
	var child int
	for i := 0; i < 100 && child == 0; i++ {
		if pids, _ := Tree("/proc", c.Process.Pid); len(pids) == 2 {
			child = pids[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	pr := &Profiler{Recorder: Recorder{CallGraph: "fp"}}
	defer pr.Close()
	attached := func() bool { pr.mu.Lock(); defer pr.mu.Unlock(); return pr.s.attached[child] }
	if _, err := pr.Profile(context.Background(), c.Process.Pid, time.Second); err != nil {
		t.Fatal(err)
	}
	if attached() {
		t.Fatal("a child under a second old was attached")
	}
	if _, err := pr.Profile(context.Background(), c.Process.Pid, time.Second); err != nil {
		t.Fatal(err)
	}
	if !attached() {
		t.Error("the child is still not attached at the second profile")
	}
}
