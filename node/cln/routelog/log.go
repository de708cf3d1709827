package routelog

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Log reads a node's route log as the plugin appends to it.
type Log struct {
	path string

	mu      sync.Mutex
	f       *os.File
	partial []byte         // a line the plugin has not finished writing
	hops    map[string]int // payment hash → the most hops over its parts
}

// maxPending bounds the parts kept for payments nobody asked about
// (failed ones): past it the oldest knowledge is dropped, not the process's memory.
const maxPending = 1 << 16

// Open reads the log at path; the file may not exist yet (the plugin
// makes it at lightningd's init).
func Open(path string) *Log { return &Log{path: path, hops: map[string]int{}} }

// Hops is the number of hops (channels) of the longest part the payment
// sent, waiting up to wait for the plugin's line; false when none came.
func (l *Log) Hops(paymentHash string, wait time.Duration) (int, bool) {
	paymentHash = strings.ToLower(paymentHash)
	deadline := time.Now().Add(wait)
	for {
		l.mu.Lock()
		l.readNew()
		n, ok := l.hops[paymentHash]
		if ok {
			delete(l.hops, paymentHash)
		}
		l.mu.Unlock()
		if ok || !time.Now().Before(deadline) {
			return n, ok
		}
		time.Sleep(5 * time.Millisecond)
	}
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
