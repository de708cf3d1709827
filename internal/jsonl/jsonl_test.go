package jsonl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type v struct {
	A int `json:"a"`
}

func TestRead(t *testing.T) {
	got, err := Read[v](strings.NewReader("{\"a\":1}\n\n{\"a\":2}\n{\"a\":"), "x.jsonl")
	if err != nil || len(got) != 2 || got[1].A != 2 {
		t.Errorf("got %v, %v; want 2 values, the torn last line dropped", got, err)
	}
	if _, err := Read[v](strings.NewReader("{\"a\":1}\nnope\n{\"a\":2}\n"), "x.jsonl"); err == nil || !strings.Contains(err.Error(), "x.jsonl line 2") {
		t.Errorf("err = %v, want line 2 named", err)
	}
	if got, err := Load[v](filepath.Join(t.TempDir(), "none.jsonl"), "none.jsonl"); got != nil || err != nil {
		t.Errorf("missing file: %v, %v", got, err)
	}
}

func TestWriterAppendsWhatReadReadsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	type rec struct{ N int }
	for round := 0; round < 2; round++ { // a second Create appends
		w, err := Create[rec](path, "test stream")
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			if err := w.Write(rec{N: round*3 + i}); err != nil {
				t.Fatal(err)
			}
		}
		if w.Path() != path || w.Close() != nil {
			t.Fatal("path or close")
		}
	}
	got, err := Load[rec](path, "test stream")
	if err != nil || len(got) != 6 || got[5].N != 5 {
		t.Fatalf("read back %v, %v", got, err)
	}
	if _, err := Create[rec](filepath.Join(path, "x"), "test stream"); err == nil || !strings.HasPrefix(err.Error(), "test stream: ") {
		t.Fatalf("error %v should name the stream", err)
	}
}

func TestWriteAllWritesWhatWriteWould(t *testing.T) {
	dir := t.TempDir()
	one, all := filepath.Join(dir, "one.jsonl"), filepath.Join(dir, "all.jsonl")
	vs := []v{{A: 1}, {A: 2}, {A: 3}}
	w1, err := Create[v](one, "one")
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range vs {
		if err := w1.Write(x); err != nil {
			t.Fatal(err)
		}
	}
	w1.Close()
	w2, err := Create[v](all, "all")
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.WriteAll(vs); err != nil {
		t.Fatal(err)
	}
	w2.Close()
	a, _ := os.ReadFile(one)
	b, _ := os.ReadFile(all)
	if string(a) != string(b) || len(a) == 0 {
		t.Errorf("WriteAll wrote %q, Write %q", b, a)
	}
}

func TestBufferedWriterFlushesOnFlushAndClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.jsonl")
	w, err := Create[v](path, "buffered")
	if err != nil {
		t.Fatal(err)
	}
	w.Buffer()
	lines := func() int {
		got, err := Load[v](path, "b.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		return len(got)
	}
	_ = w.Write(v{A: 1})
	if n := lines(); n != 0 {
		t.Errorf("%d line(s) on disk before Flush; buffered lines wait for it", n)
	}
	if err := w.Flush(); err != nil || lines() != 1 {
		t.Fatalf("after Flush: %d line(s), %v", lines(), err)
	}
	_ = w.WriteAll([]v{{A: 2}, {A: 3}})
	if err := w.Close(); err != nil || lines() != 3 {
		t.Fatalf("after Close: %d line(s), %v", lines(), err)
	}
}

func TestKeptIsWhatTheFileHolds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.jsonl")
	w, err := Create[v](path, "kept")
	if err != nil {
		t.Fatal(err)
	}
	w.Buffer()
	if err := w.Write(v{A: 0}); err != nil { // before Keep: in the file only
		t.Fatal(err)
	}
	w.Keep()
	if err := w.Write(v{A: 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteAll([]v{{A: 2}, {A: 3}}); err != nil {
		t.Fatal(err)
	}
	kept := w.Kept()
	kept[0].A = 99 // a copy: the caller cannot change what the writer holds
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	onDisk, err := Load[v](path, "kept")
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Kept(); len(got) != 3 || got[0] != onDisk[1] || got[2] != onDisk[3] {
		t.Errorf("kept %v, the file after Keep %v", got, onDisk[1:])
	}
}
