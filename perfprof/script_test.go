package perfprof

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/flamegraph"
	"github.com/lnbench/lnbench/internal/testsupport"
)

// The .perf-script files are real captures of testdata/demo.c (a process
// and its re-executed child, "exe" to the kernel, "demo_child" to ps):
//
//	gcc -O2 -g -fno-omit-frame-pointer -o demo demo.c   (demo-fp; demo_nofp without the flag for demo-dwarf)
//	./demo 3 & perf record -N -B -F 99 -g -p PARENT,CHILD -- sleep 1.5       (--call-graph dwarf for demo-dwarf)
//	perf script -F comm,pid,tid,time,period,event,ip,sym,symoff,dso [--no-inline]
//
// perf 6.1 on Linux 6.1 (Debian bookworm), a VM without a PMU (cpu-clock).
var demoChildren = map[int]string{11640: "demo_child", 11578: "demo_child"}

func demoName(pid int, comm string) string {
	if n, ok := demoChildren[pid]; ok {
		return n
	}
	return comm
}

func TestGoldenCaptures(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.perf-script")
	if len(files) < 2 {
		t.Fatalf("captures: %v", files)
	}
	for _, in := range files {
		t.Run(filepath.Base(in), func(t *testing.T) {
			f, err := os.Open(in)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc, err := Parse(f)
			if err != nil {
				t.Fatal(err)
			}
			samples := sc.Samples
			p := Convert(samples, demoName, 99, time.Unix(0, 0), time.Second)
			if err := p.CheckValid(); err != nil {
				t.Fatal(err)
			}
			folded, err := flamegraph.FromProfile(p)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			folded.Write(&got)
			if folded.Total() != int64(len(samples)) {
				t.Errorf("%d samples in, %d out", len(samples), folded.Total())
			}
			testsupport.Golden(t, strings.TrimSuffix(in, ".perf-script")+".folded", got.Bytes())
			// Each stack starts at its process: the parent is "demo" or
			// "demo_nofp", the child its argv[0] rather than the kernel's "exe".
			for _, s := range folded {
				root := s.Frames[0]
				if root != "demo" && root != "demo_nofp" && root != "demo_child" {
					t.Errorf("root frame %q in %v", root, s.Frames)
				}
			}
			text := got.String()
			for _, want := range []string{"demo_child;", "entry_SYSCALL_64_after_hwframe_[k]", "hash_htlc"} {
				if !strings.Contains(text, want) {
					t.Errorf("no %q in the folded stacks", want)
				}
			}
		})
	}
}

// DWARF unwinding gets the caller of hash_htlc (channel_tick, lost by fp
// unwinding: leaf functions set up no frame) and marks libc's inlined frames.
func TestDWARFCaptureHasInlinedFramesAndWholeStacks(t *testing.T) {
	f, _ := os.Open("testdata/demo-dwarf.perf-script")
	defer f.Close()
	sc, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var inlined, tick int
	for _, s := range sc.Samples {
		for _, fr := range s.Frames {
			if fr.Inlined {
				inlined++
				if fr.DSO != "" {
					t.Errorf("inlined frame with a DSO: %+v", fr)
				}
			}
			if fr.Sym == "channel_tick" && fr.DSO == "/tmp/pp/demo_nofp" {
				tick++
			}
		}
	}
	if inlined == 0 || tick == 0 {
		t.Errorf("%d inlined frames, %d channel_tick frames", inlined, tick)
	}
}

func TestParseHeaders(t *testing.T) {
	in := "  Web Content 12/13   5.000001:   10101010 cpu-clock:ppp: \n" +
		"\t 7f00 f+0x1 (/x)\n\n" +
		"lightning_chann 40/40 6.5: 250000 cycles:P:\n" +
		"\t ffffffff81000130 entry_SYSCALL_64+0x76 ([kernel.kallsyms])\n" +
		"\t 55d0 std::vector<int>::push_back(int const&)+0x10 (/usr/bin/x (deleted))\n" +
		"\t 0 [unknown] ([unknown])\n" +
		"\t 1234 [unknown] (/usr/lib/libc.so.6)\n" +
		"\t 1234 mix (inlined)\n"
	sc, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Samples
	if len(s) != 2 || s[0].Comm != "Web Content" || s[0].PID != 12 || s[0].TID != 13 || s[0].Period != 10101010 || s[0].Time != 5.000001 || s[0].Event != "cpu-clock:ppp" {
		t.Fatalf("%+v", s)
	}
	fr := s[1].Frames
	if s[1].Comm != "lightning_chann" || s[1].Event != "cycles:P" || len(fr) != 5 {
		t.Fatalf("%+v", s[1])
	}
	want := []Frame{
		{Addr: 0xffffffff81000130, Sym: "entry_SYSCALL_64", DSO: "[kernel.kallsyms]"},
		{Addr: 0x55d0, Sym: "std::vector<int>::push_back(int const&)", DSO: "/usr/bin/x (deleted)"},
		{Addr: 0, Sym: "[unknown]", DSO: "[unknown]"},
		{Addr: 0x1234, Sym: "[unknown]", DSO: "/usr/lib/libc.so.6"},
		{Addr: 0x1234, Sym: "mix", Inlined: true},
	}
	names := []string{"entry_SYSCALL_64_[k]", "std::vector<int>::push_back(int const&)", "[unknown]", "[libc.so.6]", "mix"}
	for i := range want {
		if fr[i] != want[i] || FrameName(fr[i]) != names[i] {
			t.Errorf("frame %d: %+v %q, want %+v %q", i, fr[i], FrameName(fr[i]), want[i], names[i])
		}
	}
}

// Task events (--show-task-events, lines as perf 6.1 prints them over
// a CLN payer: askrene forks a child per route, Go's bitcoin-cli threads):
// process forks give each child's parent, thread forks and COMM/EXIT
// lines are skipped, and the samples around them are read as before.
func TestParseTaskEvents(t *testing.T) {
	in := "     cln-askrene  4027/4027   2456.487231: PERF_RECORD_FORK(7683:7683):(4027:4027)\n" +
		"     cln-askrene  7683/7683   2456.491926: PERF_RECORD_EXIT(7683:7683):(4027:4027)\n" +
		"     bitcoin-cli  7700/7700   2456.50: PERF_RECORD_COMM exec: bitcoin-cli:7700/7700\n" +
		"     bitcoin-cli  7700/7701   2456.51: PERF_RECORD_FORK(7700:7701):(7700:7700)\n" +
		"     bitcoin-cli  7700/7701   2456.52:   10101010 cpu-clock:ppp: \n" +
		"\t 7f00 f+0x1 (/x)\n" +
		"            bcli  4012/4012   2456.53: PERF_RECORD_FORK(7700:7700):(4012:4012)\n"
	sc, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Samples) != 1 || sc.Samples[0].PID != 7700 || len(sc.Samples[0].Frames) != 1 {
		t.Errorf("samples %+v", sc.Samples)
	}
	if want := map[int]int{7683: 4027, 7700: 4012}; !maps.Equal(sc.Parents, want) {
		t.Errorf("parents %v, want %v", sc.Parents, want)
	}
	if _, err := Parse(strings.NewReader("a 1/1 2.0: PERF_RECORD_FORK(x)\n")); err == nil || !strings.Contains(err.Error(), "line 1: fork event") {
		t.Errorf("a torn fork event: %v", err)
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	for in, want := range map[string]string{
		"\t 12 f (/x)\n":                     "line 1: frame outside a sample",
		"a 1/1 2.0: 10 cpu-clock:\n\tzz f\n": "line 2: frame",
		"a 1/1 2.0: 10 cpu-clock:\n\t12 f\n": "no (dso)",
		"a b c d:\n":                         "sample header",
	} {
		_, err := Parse(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

func TestKeepsFramePointers(t *testing.T) {
	for prod, want := range map[string]bool{
		"GNU C11 12.2.0 -mtune=generic -march=x86-64 -g -Og -std=gnu11":              false,
		"GNU C11 12.2.0 -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer": true,
		"GNU C11 12.2.0 -g -fno-omit-frame-pointer -O3 -fomit-frame-pointer":         false,
		"GNU C11 12.2.0 -mtune=generic -march=x86-64 -g -O0":                         true,
		"GNU C17 12.2.0 -mtune=generic -march=x86-64 -g -fstack-protector-strong":    true,
		"clang version 16.0.6 -O2 -fno-omit-frame-pointer":                           true,
	} {
		if got := KeepsFramePointers(prod); got != want {
			t.Errorf("%q: %v", prod, got)
		}
	}
}
