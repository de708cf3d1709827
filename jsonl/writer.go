package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

// Writer appends values of T, one JSON line each; safe for concurrent
// use. Each value is one write(2), unbuffered by design: a killed harness
// loses nothing it wrote.
type Writer[T any] struct {
	path string
	mu   sync.Mutex
	f    *os.File
	enc  *json.Encoder
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
	return w.enc.Encode(v)
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
	_, err := w.f.Write(buf.Bytes())
	return err
}

// Path is the file the stream goes to.
func (w *Writer[T]) Path() string { return w.path }

// Close syncs and closes the file.
func (w *Writer[T]) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	_ = w.f.Sync()
	return w.f.Close()
}
