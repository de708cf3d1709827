// Package perfprof serves Linux perf profiles of a process tree as Go's
// pprof endpoint does (GET /debug/pprof/profile?seconds=N, a gzipped
// profile.proto), so the sampler and the flame graphs take C nodes such as
// Core Lightning (lightningd and the subdaemons and plugins it forks)
// exactly as they take LND.
package perfprof

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/lnbench/lnbench/internal/lines"
)

// MaxSeconds bounds one request's profile.
const MaxSeconds = 600

// Handler profiles the tree rooted at Target's PID, looked up at every
// request (a restarted node has a new PID).
type Handler struct {
	Target   func() (int, error)
	Profiler *Profiler
	Log      io.Writer // one line per failed request; nil is silent
	busy     atomic.Bool
}

// Close stops perf, if it runs.
func (h *Handler) Close() { h.Profiler.Close() }

// Mux serves the handler at Go's path, and /healthz.
func (h *Handler) Mux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET /debug/pprof/profile", h)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	return mux
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	secs := 30 // Go's default
	if s := r.URL.Query().Get("seconds"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxSeconds {
			h.fail(w, http.StatusBadRequest, fmt.Errorf("seconds=%q: want a whole number from 1 to %d", s, MaxSeconds))
			return
		}
		secs = n
	}
	// One profile at a time, as Go's endpoint: two would double the cost.
	if !h.busy.CompareAndSwap(false, true) {
		h.fail(w, http.StatusConflict, fmt.Errorf("a profile is being recorded already"))
		return
	}
	defer h.busy.Store(false)
	pid, err := h.Target()
	if err != nil {
		h.fail(w, http.StatusServiceUnavailable, err)
		return
	}
	p, err := h.Profiler.Profile(r.Context(), pid, time.Duration(secs)*time.Second)
	if err != nil {
		if r.Context().Err() != nil {
			return // the client left
		}
		h.fail(w, http.StatusInternalServerError, err)
		return
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		h.fail(w, http.StatusInternalServerError, err)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="profile"`)
	w.Write(buf.Bytes())
}

// fail answers with one line, which the sampler prints as the reason.
func (h *Handler) fail(w http.ResponseWriter, code int, err error) {
	msg := "perfprof: " + lines.First(err.Error())
	if h.Log != nil {
		fmt.Fprintln(h.Log, msg)
	}
	http.Error(w, msg, code)
}
