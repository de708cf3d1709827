package perfprof

import (
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// Convert makes a CPU profile shaped like Go's (samples/count and
// cpu/nanoseconds) from perf samples. Each stack gets its process's name
// as the root frame, so one graph shows the processes side by side, and
// every sample carries labels process (that name), comm (the thread's
// kernel name) and pid, so a graph per process can be cut out
// (go tool pprof -tagfocus process=lightningd). name maps a pid and its
// perf comm to the process name.
func Convert(samples []Sample, name func(pid int, comm string) string, freq int, start time.Time, dur time.Duration) *profile.Profile {
	if freq <= 0 {
		freq = 99
	}
	period := int64(time.Second) / int64(freq)
	p := &profile.Profile{
		SampleType:    []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:    &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:        period,
		TimeNanos:     start.UnixNano(),
		DurationNanos: dur.Nanoseconds(),
	}
	b := builder{p: p, funcs: map[[2]string]*profile.Function{}, locs: map[locKey]*profile.Location{}, maps: map[string]*profile.Mapping{}}
	merged := map[string]*profile.Sample{}
	var keyb strings.Builder
	for _, s := range samples {
		proc := name(s.PID, s.Comm)
		if proc == "" {
			proc = s.Comm
		}
		locs := make([]*profile.Location, 0, len(s.Frames)+1)
		for _, f := range s.Frames {
			locs = append(locs, b.location(f))
		}
		locs = append(locs, b.location(Frame{Sym: proc, DSO: "[process]"}))
		ns := period
		if cpuClock(s.Event) {
			ns = int64(s.Period) // these events count nanoseconds
		}
		keyb.Reset()
		keyb.WriteString(proc + "\x00" + s.Comm + "\x00" + strconv.Itoa(s.PID))
		for _, l := range locs {
			keyb.WriteString("," + strconv.FormatUint(l.ID, 10))
		}
		if m, ok := merged[keyb.String()]; ok {
			m.Value[0]++
			m.Value[1] += ns
			continue
		}
		ps := &profile.Sample{Location: locs, Value: []int64{1, ns},
			Label:    map[string][]string{"process": {proc}, "comm": {s.Comm}},
			NumLabel: map[string][]int64{"pid": {int64(s.PID)}}}
		merged[keyb.String()] = ps
		p.Sample = append(p.Sample, ps)
	}
	return p
}

func cpuClock(event string) bool {
	return strings.HasPrefix(event, "cpu-clock") || strings.HasPrefix(event, "task-clock")
}

type locKey struct {
	addr    uint64
	sym     string
	dso     string
	inlined bool
}

type builder struct {
	p     *profile.Profile
	funcs map[[2]string]*profile.Function
	locs  map[locKey]*profile.Location
	maps  map[string]*profile.Mapping
}

func (b *builder) location(f Frame) *profile.Location {
	k := locKey{f.Addr, f.Sym, f.DSO, f.Inlined}
	if l, ok := b.locs[k]; ok {
		return l
	}
	l := &profile.Location{ID: uint64(len(b.p.Location) + 1), Address: f.Addr,
		Line: []profile.Line{{Function: b.function(FrameName(f), f.Sym, f.DSO)}}}
	if f.DSO != "" && f.DSO != "[unknown]" && f.DSO != "[process]" {
		l.Mapping = b.mapping(f.DSO)
	}
	b.locs[k] = l
	b.p.Location = append(b.p.Location, l)
	return l
}

func (b *builder) function(name, sym, file string) *profile.Function {
	k := [2]string{name, file}
	if fn, ok := b.funcs[k]; ok {
		return fn
	}
	fn := &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: name, SystemName: sym, Filename: file}
	b.funcs[k] = fn
	b.p.Function = append(b.p.Function, fn)
	return fn
}

func (b *builder) mapping(dso string) *profile.Mapping {
	if m, ok := b.maps[dso]; ok {
		return m
	}
	// Symbols are resolved already: pprof must not look for them again.
	m := &profile.Mapping{ID: uint64(len(b.p.Mapping) + 1), File: dso, HasFunctions: true}
	b.maps[dso] = m
	b.p.Mapping = append(b.p.Mapping, m)
	return m
}

// FrameName is a frame as flame graphs show it, after FlameGraph's
// stackcollapse-perf.pl: kernel functions end in "_[k]", and a function
// perf could not name is its binary's name in brackets ("[libc.so.6]"),
// or "[unknown]", rather than an address no two samples share.
func FrameName(f Frame) string {
	if f.Sym != "[unknown]" {
		if f.Kernel() {
			return f.Sym + "_[k]"
		}
		return f.Sym
	}
	if f.DSO == "" || f.DSO == "[unknown]" {
		return "[unknown]"
	}
	return "[" + strings.Trim(filepath.Base(f.DSO), "[]") + "]"
}

// mainFirst puts the mapping of file (the root process's binary) first:
// pprof takes the first mapping for the profiled program ("File:" in its
// reports).
func mainFirst(p *profile.Profile, file string) {
	for i, m := range p.Mapping {
		if m.File == file {
			copy(p.Mapping[1:i+1], p.Mapping[:i])
			p.Mapping[0] = m
			return
		}
	}
}
