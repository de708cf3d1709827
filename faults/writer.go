package faults

import "github.com/lnbench/lnbench/internal/jsonl"

// Writer appends Records to faults.jsonl; safe for concurrent use. Each
// record reaches the OS when written, so a killed harness keeps it.
type Writer = jsonl.Writer[Record]

// Create opens path for appending.
func Create(path string) (*Writer, error) { return jsonl.Create[Record](path, "fault stream") }
