package jsonl

import (
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

// Path is the file the stream goes to.
func (w *Writer[T]) Path() string { return w.path }

// Close syncs and closes the file.
func (w *Writer[T]) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	_ = w.f.Sync()
	return w.f.Close()
}
