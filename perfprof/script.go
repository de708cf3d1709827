package perfprof

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ScriptFields is the `perf script -F` list Parse expects: a header line
// per sample ("comm pid/tid time: period event:"), then one frame per line,
// leaf first ("addr sym+off (dso)"; inlined frames end in "(inlined)").
const ScriptFields = "comm,pid,tid,time,period,event,ip,sym,symoff,dso"

// Sample is one perf sample with its call chain, leaf first.
type Sample struct {
	Comm     string
	PID, TID int
	Time     float64 // seconds on perf's clock (boot clock with -k boottime)
	Period   uint64
	Event    string
	Frames   []Frame
}

// Frame is one call-chain entry as perf script prints it.
type Frame struct {
	Addr    uint64
	Sym     string // without +0xOFF; "[unknown]" when perf could not name it
	DSO     string // "" for inlined frames (perf does not print it)
	Inlined bool
}

// Kernel tells kernel frames apart (perf names their DSO [kernel.kallsyms]
// or [kernel.vmlinux], modules [name]).
func (f Frame) Kernel() bool {
	return strings.HasPrefix(f.DSO, "[kernel.") || (f.Addr >= 0xffff800000000000 && strings.HasPrefix(f.DSO, "["))
}

// Script is what `perf script -F ScriptFields --show-task-events` says:
// the samples, and which process forked each process that started while
// perf recorded (threads are not listed).
type Script struct {
	Samples []Sample
	Parents map[int]int // child PID → parent PID, from PERF_RECORD_FORK
}

// Parse reads `perf script -F ScriptFields` output, with or without
// --show-task-events. Lines it cannot read are errors with their line
// number: a silently dropped frame would misattribute time.
func Parse(r io.Reader) (Script, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	var out []Sample
	parents := map[int]int{}
	var cur *Sample
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			cur = nil
		case strings.Contains(trimmed, ": PERF_RECORD_"):
			// A task event: "comm pid/tid time: PERF_RECORD_FORK(child:ctid):(parent:ptid)";
			// COMM and EXIT lines say nothing the samples do not.
			cur = nil
			if child, parent, ok, err := parseFork(trimmed); err != nil {
				return Script{}, fmt.Errorf("perf script line %d: %v", n, err)
			} else if ok && child != parent {
				parents[child] = parent
			}
		case strings.HasSuffix(trimmed, ":"):
			// Only headers end in ':' ("event:"); perf pads the comm
			// when a sample has no call chain, so indentation does not tell.
			s, err := parseHeader(trimmed)
			if err != nil {
				return Script{}, fmt.Errorf("perf script line %d: %v", n, err)
			}
			out = append(out, s)
			cur = &out[len(out)-1]
		default:
			if cur == nil {
				return Script{}, fmt.Errorf("perf script line %d: frame outside a sample: %q", n, line)
			}
			f, err := parseFrame(trimmed)
			if err != nil {
				return Script{}, fmt.Errorf("perf script line %d: %v", n, err)
			}
			cur.Frames = append(cur.Frames, f)
		}
	}
	return Script{Samples: out, Parents: parents}, sc.Err()
}

// parseFork reads a PERF_RECORD_FORK line's "(child:ctid):(parent:ptid)";
// ok is false for the other task events. A thread's fork has child ==
// parent (one process).
func parseFork(s string) (child, parent int, ok bool, err error) {
	_, rec, _ := strings.Cut(s, ": PERF_RECORD_")
	ids, isFork := strings.CutPrefix(rec, "FORK")
	if !isFork {
		return 0, 0, false, nil
	}
	var ctid, ptid int
	if _, err := fmt.Sscanf(ids, "(%d:%d):(%d:%d)", &child, &ctid, &parent, &ptid); err != nil {
		return 0, 0, false, fmt.Errorf("fork event %q: want PERF_RECORD_FORK(child:tid):(parent:tid)", s)
	}
	return child, parent, true, nil
}

// parseHeader reads "comm pid/tid time: period event:" from the right,
// since a comm may contain spaces.
func parseHeader(s string) (Sample, error) {
	f := strings.Fields(s)
	bad := fmt.Errorf("sample header %q: want \"comm pid/tid time: period event:\"", s)
	if len(f) < 5 {
		return Sample{}, bad
	}
	k := len(f)
	event := strings.TrimSuffix(f[k-1], ":")
	period, err := strconv.ParseUint(f[k-2], 10, 64)
	tm, err2 := strconv.ParseFloat(strings.TrimSuffix(f[k-3], ":"), 64)
	if err != nil || err2 != nil || !strings.HasSuffix(f[k-3], ":") {
		return Sample{}, bad
	}
	pid, tid, ok := strings.Cut(f[k-4], "/")
	p, err1 := strconv.Atoi(pid)
	t, err2 := strconv.Atoi(tid)
	if !ok || err1 != nil || err2 != nil {
		return Sample{}, bad
	}
	// The comm is everything before the pid/tid field, spaces included.
	i := strings.LastIndex(s, f[k-4]+" ")
	comm := strings.TrimSpace(s[:i])
	if comm == "" {
		return Sample{}, bad
	}
	return Sample{Comm: comm, PID: p, TID: t, Time: tm, Period: period, Event: event}, nil
}

// parseFrame reads "addr sym+0xoff (dso)" or "addr sym+0xoff (inlined)".
func parseFrame(s string) (Frame, error) {
	addr, rest, ok := strings.Cut(s, " ")
	a, err := strconv.ParseUint(addr, 16, 64)
	if !ok || err != nil {
		return Frame{}, fmt.Errorf("frame %q: no hex address first", s)
	}
	rest = strings.TrimSpace(rest)
	var f Frame
	f.Addr = a
	if r, ok := strings.CutSuffix(rest, " (inlined)"); ok {
		f.Inlined, rest = true, r
	} else {
		i := openParen(rest)
		if i < 0 {
			return Frame{}, fmt.Errorf("frame %q: no (dso) at the end", s)
		}
		f.DSO, rest = rest[i+1:len(rest)-1], strings.TrimSpace(rest[:i])
	}
	f.Sym = trimOffset(rest)
	if f.Sym == "" {
		f.Sym = "[unknown]"
	}
	return f, nil
}

// openParen finds the '(' matching the string's final ')': a DSO path may
// itself hold parentheses, e.g. "(/usr/bin/x (deleted))".
func openParen(s string) int {
	if !strings.HasSuffix(s, ")") {
		return -1
	}
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// trimOffset drops perf's "+0x1a" from a symbol.
func trimOffset(sym string) string {
	i := strings.LastIndex(sym, "+0x")
	if i <= 0 {
		return sym
	}
	if _, err := strconv.ParseUint(sym[i+3:], 16, 64); err != nil {
		return sym
	}
	return sym[:i]
}
