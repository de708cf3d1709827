package collect

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// goRuntime reads the goroutine count and the in-use heap from a Go
// process's pprof endpoint (lnd --profile); zeros when it does not answer.
func (c *Collector) goRuntime(ctx context.Context, host string) (goroutines int, heap int64) {
	client := c.HTTP
	if client == nil {
		client = &http.Client{Timeout: 2 * time.Second}
	}
	get := func(path string) io.ReadCloser {
		req, err := http.NewRequestWithContext(ctx, "GET", "http://"+host+path, nil)
		if err != nil {
			return nil
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return nil
		}
		return resp.Body
	}
	if body := get("/debug/pprof/goroutine?debug=1"); body != nil {
		goroutines = parseGoroutines(body)
		body.Close()
	}
	if body := get("/debug/pprof/heap?debug=1"); body != nil {
		heap = parseHeapInuse(body)
		body.Close()
	}
	return goroutines, heap
}

// parseGoroutines reads "goroutine profile: total N" (the first line).
func parseGoroutines(r io.Reader) int {
	line, _ := bufio.NewReader(r).ReadString('\n')
	_, n, ok := strings.Cut(strings.TrimSpace(line), "total ")
	if !ok {
		return 0
	}
	v, _ := strconv.Atoi(n)
	return v
}

// parseHeapInuse reads "# HeapInuse = N" from the runtime.MemStats block at
// the end of a debug=1 heap profile.
func parseHeapInuse(r io.Reader) int64 {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "# HeapInuse = "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}
