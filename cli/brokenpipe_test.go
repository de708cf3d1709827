package cli

import (
	"bytes"
	"os"
	"syscall"
	"testing"
)

func TestPipeWatchCancelsOnBrokenPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r.Close()
	var got any
	cancelled := false
	pw := watchPipe(w, func(v any) { got = v }, func() { cancelled = true })
	if _, err := pw.Write([]byte("line\n")); err == nil {
		t.Fatal("write to a pipe without a reader succeeded")
	}
	if !cancelled || got != os.Signal(syscall.SIGPIPE) {
		t.Fatalf("cancelled=%v cause=%v; want cancelled by SIGPIPE", cancelled, got)
	}
	if pw.(*pipeWatch).Fd() != w.Fd() {
		t.Error("Fd does not show the file underneath")
	}
}

func TestPipeWatchPassesOtherWrites(t *testing.T) {
	var buf bytes.Buffer
	pw := watchPipe(&buf, func(any) { t.Fatal("recorded a cause") }, func() { t.Fatal("cancelled") })
	if n, err := pw.Write([]byte("abc")); n != 3 || err != nil || buf.String() != "abc" {
		t.Fatalf("n=%d err=%v buf=%q", n, err, buf.String())
	}
	if pw.(*pipeWatch).Fd() != ^uintptr(0) {
		t.Error("a non-file writer claims a descriptor")
	}
}
