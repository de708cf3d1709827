package faults

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

// Writer appends Records to faults.jsonl; safe for concurrent use. Each
// record reaches the OS when written, so a killed harness keeps it.
type Writer struct {
	mu  sync.Mutex
	f   *os.File
	enc *json.Encoder
}

// Create opens path for appending.
func Create(path string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("fault stream: %v", err)
	}
	return &Writer{f: f, enc: json.NewEncoder(f)}, nil
}

// Write appends one record.
func (w *Writer) Write(r Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.enc.Encode(r)
}

// Close closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.f.Close()
}
