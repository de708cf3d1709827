package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/usage"
)

// procSnapshotOfWorkDir samples, from /proc, every process whose command
// line names a folder under workDir (the local backend's node data dirs:
// --lnddir=<workDir>/<node>, btcd's --datadir=<workDir>/btcd/data). A
// stop-gap for the local backend until package usage/collect reads the
// backend's actors; it needs nothing from the backend.
func procSnapshotOfWorkDir(workDir string) Snapshotter {
	return func(ctx context.Context, be backend.Backend) ([]usage.Sample, error) {
		if be.Name() != "local" {
			return nil, nil // containers: not processes of ours to read here
		}
		return procSnapshot("/proc", workDir, time.Now())
	}
}

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat:
// 100 on every Linux architecture Go supports.
const clockTicks = 100

func procSnapshot(procRoot, workDir string, now time.Time) ([]usage.Sample, error) {
	entries, err := os.ReadDir(procRoot)
	if err != nil {
		return nil, err
	}
	prefix := filepath.Clean(workDir) + string(filepath.Separator)
	var out []usage.Sample
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		dir := filepath.Join(procRoot, e.Name())
		cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if err != nil {
			continue // gone meanwhile
		}
		actor := actorIn(cmdline, prefix)
		if actor == "" {
			continue
		}
		s := usage.Sample{Time: now, Actor: actor, Role: usage.RoleNode, Source: usage.SourceProc}
		if actor == "btcd" {
			s.Role = usage.RoleChain
		}
		status, err := os.ReadFile(filepath.Join(dir, "status"))
		if err != nil {
			continue
		}
		s.RSSBytes, s.RSSPeakBytes = statusKB(status, "VmRSS:")*1024, statusKB(status, "VmHWM:")*1024
		stat, err := os.ReadFile(filepath.Join(dir, "stat"))
		if err != nil {
			continue
		}
		if s.CPUUserSeconds, s.CPUSysSeconds, err = cpuTimes(stat); err != nil {
			return nil, fmt.Errorf("pid %d: %v", pid, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// actorIn names the actor whose data dir an argument places under prefix:
// the first path element after it.
func actorIn(cmdline []byte, prefix string) string {
	for _, arg := range bytes.Split(cmdline, []byte{0}) {
		_, v, ok := strings.Cut(string(arg), "=")
		if !ok || !strings.HasPrefix(v, prefix) {
			continue
		}
		rest := strings.TrimPrefix(v, prefix)
		name, _, _ := strings.Cut(rest, string(filepath.Separator))
		return name
	}
	return ""
}

func statusKB(status []byte, key string) int64 {
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == key {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb
		}
	}
	return 0
}

// cpuTimes reads utime and stime (fields 14 and 15) of /proc/PID/stat;
// the command name in parentheses may hold spaces, so fields count from
// the last ')'.
func cpuTimes(stat []byte) (user, sys float64, err error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("stat without a command name")
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("stat has %d fields after the name", len(f))
	}
	u, err1 := strconv.ParseFloat(f[11], 64)
	s, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("stat utime %q stime %q", f[11], f[12])
	}
	return u / clockTicks, s / clockTicks, nil
}
