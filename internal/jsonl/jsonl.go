// Package jsonl reads the JSON-lines streams a run appends to as it goes
// (faults.jsonl, resources.jsonl): one value per line, flushed line by
// line, so a killed harness leaves at most a torn last line.
package jsonl

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Read decodes every line of r. Empty lines are skipped; a torn last line
// is dropped; any other bad line is an error naming the stream and line.
func Read[T any](r io.Reader, name string) ([]T, error) {
	var out []T
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	var pending error
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		if pending != nil {
			return nil, pending
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			pending = fmt.Errorf("%s line %d: %v", name, line, err)
			continue
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

// Load reads the file at path; a missing file is an empty stream (nil, nil).
func Load[T any](path, name string) ([]T, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read[T](f, name)
}
