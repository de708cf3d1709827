package dockerapi

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/swarm"
)

// A fake manager on a unix socket: the tasks of two services, listed in
// no order, and the filters each question sent.
func TestEngineSwarmDocuments(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "m.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatalf("a unix socket: %v", err)
	}
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	task := func(id, svc string, age int) swarm.Task {
		return swarm.Task{ID: id, ServiceID: svc, Meta: swarm.Meta{CreatedAt: t0.Add(-time.Duration(age) * time.Minute)}}
	}
	var asked []string
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Path+" "+r.URL.Query().Get("filters"))
		switch r.URL.Path {
		case "/services":
			_ = json.NewEncoder(w).Encode([]swarm.Service{{ID: "s1"}, {ID: "s2"}})
		case "/tasks":
			_ = json.NewEncoder(w).Encode([]swarm.Task{task("old-b", "s2", 9), task("old-a", "s1", 5), task("new-b", "s2", 1), task("new-a", "s1", 2)})
		case "/nodes":
			_ = json.NewEncoder(w).Encode([]swarm.Node{{ID: "n1", Description: swarm.NodeDescription{Hostname: "lnbe-1"}}})
		default:
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"message":"page not found"}`))
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	e := NewEngine("unix://" + sock)
	ctx := context.Background()
	if s, err := e.Services(ctx, "com.docker.stack.namespace=lnb-x"); err != nil || len(s) != 2 {
		t.Fatalf("services %v, %v", s, err)
	}
	tasks, err := e.Tasks(ctx, "s1", "s2")
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, tk := range tasks {
		order = append(order, tk.ID)
	}
	if got := strings.Join(order, " "); got != "new-a old-a new-b old-b" {
		t.Errorf("tasks %s, want each service's newest first", got)
	}
	if n, err := e.Nodes(ctx); err != nil || n[0].Description.Hostname != "lnbe-1" {
		t.Errorf("nodes %v, %v", n, err)
	}
	if tasks, err := e.Tasks(ctx); err != nil || tasks != nil {
		t.Errorf("no service: %v, %v; want no question", tasks, err)
	}
	want := []string{`/services {"label":["com.docker.stack.namespace=lnb-x"]}`, `/tasks {"service":["s1","s2"]}`, "/nodes "}
	if strings.Join(asked, "\n") != strings.Join(want, "\n") {
		t.Errorf("asked\n%s\nwant\n%s", strings.Join(asked, "\n"), strings.Join(want, "\n"))
	}
	if _, err := e.Inspect(ctx, "zzz"); err == nil || !strings.Contains(err.Error(), "404 Not Found page not found") {
		t.Errorf("a missing container: %v", err)
	}
}

// Pause and unpause are POSTs answered 204; the engine's refusal (runc's
// "unable to freeze", which the compose backend retries) keeps its message.
func TestEnginePauseAndUnpause(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "e.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatalf("a unix socket: %v", err)
	}
	var asked []string
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.Method+" "+r.URL.Path)
		if strings.HasPrefix(r.URL.Path, "/containers/busy/") {
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"message":"Cannot pause container busy: OCI runtime pause failed: unable to freeze: unknown"}`))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	e := NewEngine("unix://" + sock)
	ctx := context.Background()
	if err := e.Pause(ctx, "c1"); err != nil {
		t.Fatal(err)
	}
	if err := e.Unpause(ctx, "c1"); err != nil {
		t.Fatal(err)
	}
	err = e.Pause(ctx, "busy")
	if err == nil || !strings.Contains(err.Error(), "unable to freeze") {
		t.Errorf("a refused pause: %v, want the engine's message", err)
	}
	if got := strings.Join(asked, ", "); got != "POST /containers/c1/pause, POST /containers/c1/unpause, POST /containers/busy/pause" {
		t.Errorf("asked %s", got)
	}
}
