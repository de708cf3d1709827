package sampler

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

const perfScript = `bash 21798  2389.264871:    2004008 cpu-clock:ppp: 
	           c2550 fmtumax+0x0 (/usr/bin/bash)
	           9ac8e execute_command+0xe (/usr/bin/bash)
	               1 [unknown] ([unknown])

bash 21798  2389.266871:    2004008 cpu-clock:ppp: 
	           c2550 fmtumax+0x10 (/usr/bin/bash)
	           9ac8e execute_command+0x20 (/usr/bin/bash)
	               1 [unknown] ([unknown])

lnd 11 2389.27:    2004008 cpu-clock:ppp: 
	          167adf __strlen_evex+0x1f (/usr/lib/x86_64-linux-gnu/libc.so.6)
`

func TestParsePerfScript(t *testing.T) {
	f, err := ParsePerfScript(strings.NewReader(perfScript))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	f.Write(&b)
	want := "bash;[[unknown]];execute_command;fmtumax 2\nlnd;__strlen_evex 1\n"
	if b.String() != want {
		t.Fatalf("folded:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestPerfRecord samples a real busy process where perf_event is permitted;
// elsewhere PerfCheck's one-line reason is the expected outcome.
func TestPerfRecord(t *testing.T) {
	if err := PerfCheck(); err != nil {
		t.Skip(err)
	}
	busy := exec.Command("sh", "-c", "i=0; while [ $i -lt 100000000 ]; do i=$((i+1)); done")
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	defer busy.Process.Kill()
	f, err := PerfRecord(context.Background(), busy.Process.Pid, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if f.Total() < 20 {
		t.Fatalf("only %d samples in 2 s at 99 Hz", f.Total())
	}
	for _, s := range f {
		if s.Frames[0] != "sh" {
			t.Fatalf("root frame %q, want the process name sh", s.Frames[0])
		}
	}
}
