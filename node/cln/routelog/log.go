package routelog

import (
	"bytes"
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lnbench/lnbench/internal/wait"
)

// Log reads a node's route log as the plugin appends to it.
type Log struct {
	path string

	mu      sync.Mutex
	f       *os.File
	partial []byte         // a line the plugin has not finished writing
	hops    map[string]int // payment hash → the most hops over its parts
}

// maxPending bounds the payments kept that nobody asked about (failed
// ones): past it what the log holds is forgotten, not the process's memory.
const maxPending = 1 << 16

// Open reads the log at path; the file may not exist yet (the plugin
// makes it at lightningd's init).
func Open(path string) *Log { return &Log{path: path, hops: map[string]int{}} }

// Hops is the number of hops (channels) of the longest part the payment
// sent, waiting up to within for the plugin's line; false when none came.
func (l *Log) Hops(paymentHash string, within time.Duration) (int, bool) {
	paymentHash = strings.ToLower(paymentHash)
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	var n int
	found := wait.Until(ctx, 5*time.Millisecond, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.readNew()
		var ok bool
		if n, ok = l.hops[paymentHash]; ok {
			delete(l.hops, paymentHash)
		}
		return ok
	}) == nil
	return n, found
}

// Close closes the file.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// readNew parses the lines appended since the last read.
func (l *Log) readNew() {
	if l.f == nil {
		f, err := os.Open(l.path)
		if err != nil {
			return
		}
		l.f = f
	}
	data, err := io.ReadAll(l.f)
	if err != nil || len(data) == 0 {
		return
	}
	data = append(l.partial, data...)
	end := bytes.LastIndexByte(data, '\n')
	if end < 0 {
		l.partial = data
		return
	}
	l.partial = append([]byte(nil), data[end+1:]...)
	if len(l.hops) > maxPending {
		clear(l.hops)
	}
	for _, line := range strings.Split(string(data[:end]), "\n") {
		hash, hops, ok := parseLine(line)
		if ok && hops > l.hops[hash] {
			l.hops[hash] = hops
		}
	}
}

// parseLine reads "payment_hash groupid partid hops".
func parseLine(line string) (string, int, bool) {
	f := strings.Fields(line)
	if len(f) != 4 {
		return "", 0, false
	}
	n, err := strconv.Atoi(f[3])
	if err != nil || n < 0 {
		return "", 0, false
	}
	return strings.ToLower(f[0]), n, true
}
