package sampler

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/lnbench/lnbench/flamegraph"
)

// The perf-based sampler is for nodes without a pprof endpoint (non-Go
// implementations): perf record → perf script → folded stacks, the
// pipeline of FlameGraph's stackcollapse-perf.pl.

// PerfCheck tells in one line why perf sampling cannot run here, or nil.
func PerfCheck() error {
	if _, err := exec.LookPath("perf"); err != nil {
		return fmt.Errorf("perf sampling unavailable: no perf binary (install Debian's linux-perf)")
	}
	if data, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid"); err == nil {
		if level, _ := strconv.Atoi(strings.TrimSpace(string(data))); level > 2 && os.Geteuid() != 0 {
			return fmt.Errorf("perf sampling unavailable: perf_event not permitted (kernel.perf_event_paranoid=%d); set it to 2 or lower, or run as root", level)
		}
	}
	cmd := exec.Command("perf", "record", "-q", "-o", os.DevNull, "--", "true")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("perf sampling unavailable: perf_event not permitted here: %s", firstLine(strings.TrimSpace(string(out))))
	}
	return nil
}

// PerfRecord samples a process's stacks for d at 99 Hz and folds them.
func PerfRecord(ctx context.Context, pid int, d time.Duration) (flamegraph.Folded, error) {
	tmp, err := os.MkdirTemp("", "lnbench-perf-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	data := filepath.Join(tmp, "perf.data")
	rec := exec.CommandContext(ctx, "perf", "record", "-q", "-F", "99", "-g", "-p", strconv.Itoa(pid), "-o", data,
		"--", "sleep", strconv.FormatFloat(d.Seconds(), 'f', 3, 64))
	if out, err := rec.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("perf record -p %d: %v: %s", pid, err, firstLine(string(out)))
	}
	script := exec.CommandContext(ctx, "perf", "script", "-i", data)
	out, err := script.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := script.Start(); err != nil {
		return nil, err
	}
	f, perr := ParsePerfScript(out)
	if err := script.Wait(); err != nil {
		return nil, fmt.Errorf("perf script: %v", err)
	}
	return f, perr
}

var (
	perfFrame  = regexp.MustCompile(`^\s+[0-9a-f]+\s+(.+?)\s+\((.*)\)$`)
	perfOffset = regexp.MustCompile(`\+0x[0-9a-f]+$`)
)

// ParsePerfScript folds `perf script` output: one event per blank-line
// separated block, a header line (comm pid time: period event:) then frames
// leaf first. The process name is the root frame, as stackcollapse-perf.pl
// does; unknown symbols are named by their module.
func ParsePerfScript(r io.Reader) (flamegraph.Folded, error) {
	var out flamegraph.Folded
	var comm string
	var frames []string
	flush := func() {
		if comm == "" {
			return
		}
		stack := []string{comm}
		for i := len(frames) - 1; i >= 0; i-- {
			stack = append(stack, frames[i])
		}
		out = append(out, flamegraph.Stack{Frames: stack, Count: 1})
		comm, frames = "", nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case line[0] != ' ' && line[0] != '\t':
			flush()
			comm = strings.Fields(line)[0]
		default:
			m := perfFrame.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			sym := perfOffset.ReplaceAllString(m[1], "")
			if sym == "[unknown]" {
				sym = "[" + filepath.Base(m[2]) + "]"
			}
			frames = append(frames, sym)
		}
	}
	flush()
	return out.Merge(), sc.Err()
}
