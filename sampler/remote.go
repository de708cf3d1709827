package sampler

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/lnbench/lnbench/internal/wait"
)

// Handler serves a session to the harness: the sidecar's control API.
//
//	GET  /healthz
//	POST /iteration?label=L&from=UNIXNANO&to=UNIXNANO
func Handler(s Controller) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("POST /iteration", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		from, err1 := strconv.ParseInt(q.Get("from"), 10, 64)
		to, err2 := strconv.ParseInt(q.Get("to"), 10, 64)
		if err1 != nil || err2 != nil || to < from {
			http.Error(w, "from and to must be unix nanoseconds with from <= to", http.StatusBadRequest)
			return
		}
		if err := s.Iteration(r.Context(), q.Get("label"), time.Unix(0, from), time.Unix(0, to)); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		io.WriteString(w, "ok\n")
	})
	return mux
}

// Remote is a Controller talking to a sidecar's Handler.
type Remote struct {
	URL    string
	Client *http.Client
}

// Iteration asks the sidecar to store the windows of [from, to].
func (r Remote) Iteration(ctx context.Context, label string, from, to time.Time) error {
	q := url.Values{"label": {label}, "from": {strconv.FormatInt(from.UnixNano(), 10)}, "to": {strconv.FormatInt(to.UnixNano(), 10)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(r.URL, "/")+"/iteration?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	c := r.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("sampler sidecar: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("sampler sidecar: HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return nil
}

// Stop does nothing: the sidecar stops with its container.
func (Remote) Stop() {}

// WaitHealthy polls the sidecar until it answers, bounded by ctx.
func (r Remote) WaitHealthy(ctx context.Context) error {
	healthy := func() bool {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(r.URL, "/")+"/healthz", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	if wait.Until(ctx, 100*time.Millisecond, healthy) != nil {
		return fmt.Errorf("sampler sidecar at %s did not answer: %w", r.URL, ctx.Err())
	}
	return nil
}
