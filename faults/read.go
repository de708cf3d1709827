package faults

import (
	"io"

	"github.com/lnbench/lnbench/internal/jsonl"
)

// Read decodes a fault stream. A torn last line (the harness killed
// mid-write) is skipped; a bad line before the last is an error naming it.
func Read(r io.Reader) ([]Record, error) { return jsonl.Read[Record](r, FileName) }

// Load reads path; a missing file is a run without faults (nil, nil).
func Load(path string) ([]Record, error) { return jsonl.Load[Record](path, FileName) }
