package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

// Writer appends values of T, one JSON line each; safe for concurrent
// use. Each value is one write(2), unbuffered by default: a killed harness
// loses nothing it wrote. Buffer trades that for fewer system calls.
type Writer[T any] struct {
	path string
	mu   sync.Mutex
	f    *os.File
	buf  *bufio.Writer // nil: unbuffered
	enc  *json.Encoder
	// kept holds every value written since Keep, for readers in the same
	// process: they need not read the file back and decode it again.
	kept []T
	keep bool
}

// Keep makes the writer also hold every value it writes from now on, for
// Kept: the run's own readers (until-known's looks between launches) see
// the stream as the file holds it without reading the file back.
func (w *Writer[T]) Keep() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.keep = true
}

// Kept is a copy of the values written since Keep, in the file's order.
func (w *Writer[T]) Kept() []T {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]T(nil), w.kept...)
}

// Buffer makes Write keep lines in memory until Flush or Close (or a full
// buffer): the result stream's one write(2) per payment was a third of
// the harness's CPU for its records. A SIGKILL then loses what was not
// flushed; interrupts still flush through Close.
func (w *Writer[T]) Buffer() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf == nil {
		w.buf = bufio.NewWriterSize(w.f, 64<<10)
		w.enc = json.NewEncoder(w.buf)
	}
}

// Flush writes the buffered lines; a no-op when unbuffered.
func (w *Writer[T]) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf == nil {
		return nil
	}
	return w.buf.Flush()
}

// Create opens path for appending; name says which stream in errors
// ("result stream").
func Create[T any](path, name string) (*Writer[T], error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &Writer[T]{path: path, f: f, enc: json.NewEncoder(f)}, nil
}

// Write appends one value.
func (w *Writer[T]) Write(v T) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.enc.Encode(v); err != nil {
		return err
	}
	if w.keep {
		w.kept = append(w.kept, v)
	}
	return nil
}

// WriteAll appends vs in one write(2), as the same lines Write would give:
// one system call for a batch (the resource sampler's actors of one tick).
func (w *Writer[T]) WriteAll(vs []T) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, v := range vs {
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var err error
	if w.buf != nil {
		_, err = w.buf.Write(buf.Bytes())
	} else {
		_, err = w.f.Write(buf.Bytes())
	}
	if err == nil && w.keep {
		w.kept = append(w.kept, vs...)
	}
	return err
}

// Path is the file the stream goes to.
func (w *Writer[T]) Path() string { return w.path }

// Close flushes, syncs and closes the file.
func (w *Writer[T]) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var ferr error
	if w.buf != nil {
		ferr = w.buf.Flush()
	}
	_ = w.f.Sync()
	if err := w.f.Close(); err != nil {
		return err
	}
	return ferr
}
