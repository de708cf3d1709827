//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/internal/testsupport"
)

// testbedRange is where scripts/testbed-engines.sh may put addresses.
var testbedRange = mustCIDR("198.18.0.0/15")

func mustCIDR(s string) *net.IPNet {
	_, n, err := net.ParseCIDR(s)
	if err != nil {
		panic(err)
	}
	return n
}

// needTestbedTools checks what scripts/testbed-engines.sh needs.
func needTestbedTools(t *testing.T) {
	t.Helper()
	testsupport.RequireRoot(t, "the testbed creates network namespaces, a bridge and a firewall rule")
	testsupport.RequireTools(t, "docker", "dockerd", "nsenter", "unshare", "ip", "iptables")
}

// TestTestbedEngines starts three Docker engines in one swarm with
// scripts/testbed-engines.sh, checks every node is Ready, then tears them
// down and checks that nothing is left on the host.
func TestTestbedEngines(t *testing.T) {
	needTestbedTools(t)
	testsupport.RequireDocker(t)
	links, _ := exec.Command("ip", "-o", "link", "show").Output()
	testsupport.RequireOrSkip(t, !strings.Contains(string(links), " lnbe-"), "a testbed is already up on this machine (scripts/testbed-engines.sh down removes it)")

	state := filepath.Join(t.TempDir(), "engines")
	script := filepath.Join(repoRoot(t), "scripts", "testbed-engines.sh")
	// A descriptor the caller passes down (as `flock LOCK script` would):
	// the engines must not keep it, nor the script's own lock.
	inherited, err := os.Create(filepath.Join(t.TempDir(), "inherited"))
	if err != nil {
		t.Fatal(err)
	}
	defer inherited.Close()
	testbed := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, script, args...)
		cmd.ExtraFiles = []*os.File{inherited}
		cmd.Env = append(os.Environ(), "LNBENCH_ENGINES_DIR="+state)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		t.Logf("testbed-engines.sh %s:\n%s%s", strings.Join(args, " "), stderr.String(), stdout.String())
		return stdout.String(), err
	}
	// Runs before t.TempDir's removal (cleanups run last-in first-out).
	t.Cleanup(func() { testbed("down") })

	out, err := testbed("up", "3")
	if err != nil {
		t.Fatalf("up 3: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("up 3 printed %d engine lines, want 3:\n%s", len(lines), out)
	}
	var sockets []string
	for _, line := range lines {
		f := strings.Fields(line) // name address socket
		if len(f) != 3 {
			t.Fatalf("engine line %q: want name, address, socket", line)
		}
		if ip := net.ParseIP(f[1]); ip == nil || !testbedRange.Contains(ip) {
			t.Errorf("engine %s has address %s, outside %v", f[0], f[1], testbedRange)
		}
		sockets = append(sockets, f[2])
	}

	nodes, err := exec.Command("docker", "-H", sockets[0], "node", "ls", "--format", "{{.Hostname}} {{.Status}}").Output()
	if err != nil {
		t.Fatalf("node ls on the manager: %v", err)
	}
	if got, want := strings.TrimSpace(string(nodes)), "lnbe-1 Ready\nlnbe-2 Ready\nlnbe-3 Ready"; sortedLines(got) != want {
		t.Errorf("swarm nodes:\n%s\nwant:\n%s", got, want)
	}
	for i, sock := range sockets {
		state, err := exec.Command("docker", "-H", sock, "info", "--format", "{{.Swarm.LocalNodeState}}").Output()
		if err != nil || strings.TrimSpace(string(state)) != "active" {
			t.Errorf("engine %d (%s): swarm state %q, err %v; want active", i+1, sock, state, err)
		}
	}
	// The script's lock ends with the script: no engine holds it, nor the
	// caller's descriptor.
	if out, err := exec.Command("flock", "-n", testbedLock, "true").CombinedOutput(); err != nil {
		t.Errorf("the testbed's lock %s is still held after up returned: %v %s", testbedLock, err, out)
	}
	for i := 1; i <= 3; i++ {
		pid, _ := os.ReadFile(filepath.Join(state, fmt.Sprintf("lnbe-%d", i), "docker.pid"))
		fds, err := os.ReadDir(filepath.Join("/proc", strings.TrimSpace(string(pid)), "fd"))
		if err != nil || len(pid) == 0 {
			t.Errorf("engine %d's dockerd (pid %q): %v", i, pid, err)
			continue
		}
		for _, fd := range fds {
			target, _ := os.Readlink(filepath.Join("/proc", strings.TrimSpace(string(pid)), "fd", fd.Name()))
			if target == testbedLock || target == inherited.Name() {
				t.Errorf("engine %d's dockerd holds fd %s → %s", i, fd.Name(), target)
			}
		}
	}
	if seen := testbedLeftovers(state); len(seen) < 5 {
		// netns, links, firewall rule, processes, state dir: the check below would be blind.
		t.Errorf("the leftover check sees only %q while the testbed is up", seen)
	}
	if _, err := testbed("up", "3"); err != nil {
		t.Errorf("up 3 when already up: %v (want a note and success)", err)
	}

	if _, err := testbed("down"); err != nil {
		t.Fatalf("down: %v", err)
	}
	for _, left := range testbedLeftovers(state) {
		t.Errorf("left after down: %s", left)
	}
	if _, err := testbed("down"); err != nil {
		t.Errorf("second down: %v (want success)", err)
	}
}

// testbedLock is the lock scripts/testbed-engines.sh holds while it runs.
const testbedLock = "/run/lock/lnbench-testbed-engines.lock"

// testbedLeftovers lists what a testbed created that is still on the host.
func testbedLeftovers(state string) []string {
	var left []string
	if out, _ := exec.Command("ip", "netns", "list").Output(); strings.Contains(string(out), "lnbe-") {
		left = append(left, "network namespaces: "+strings.TrimSpace(string(out)))
	}
	if out, _ := exec.Command("ip", "-o", "link", "show").Output(); strings.Contains(string(out), " lnbe-") {
		left = append(left, "links: "+string(out))
	}
	if out, _ := exec.Command("iptables", "-S", "DOCKER-USER").Output(); strings.Contains(string(out), "lnbe-") {
		left = append(left, "firewall rules: "+string(out))
	}
	if mounts, _ := os.ReadFile("/proc/self/mountinfo"); strings.Contains(string(mounts), state) {
		left = append(left, "mounts under "+state)
	}
	for _, p := range processesMentioning(state) {
		left = append(left, "process "+p)
	}
	if entries, err := os.ReadDir(state); err == nil {
		left = append(left, fmt.Sprintf("state dir %s with %d entries", state, len(entries)))
	}
	return left
}

func sortedLines(s string) string {
	lines := strings.Split(s, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
