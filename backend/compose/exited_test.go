package compose

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"testing"
)

// fakeEngine serves /containers/json on a unix socket, answering ids for
// the exited containers of project "p1" and recording the filters asked.
func fakeEngine(t *testing.T, status int, exited []string) (sock string, asked *map[string][]string) {
	t.Helper()
	sock = filepath.Join(t.TempDir(), "docker.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no unix socket here: %v", err)
	}
	got := map[string][]string{}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/containers/json" || r.URL.Query().Get("all") != "1" {
			http.NotFound(w, r)
			return
		}
		_ = json.Unmarshal([]byte(r.URL.Query().Get("filters")), &got)
		w.WriteHeader(status)
		var list []map[string]string
		for _, id := range exited {
			list = append(list, map[string]string{"Id": id})
		}
		_ = json.NewEncoder(w).Encode(list)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return sock, &got
}

func TestExitedProbeAsksTheEngine(t *testing.T) {
	for _, tc := range []struct {
		exited []string
		want   bool
	}{{nil, false}, {[]string{"abc"}, true}} {
		sock, asked := fakeEngine(t, http.StatusOK, tc.exited)
		t.Setenv("DOCKER_HOST", "unix://"+sock)
		var p exitedProbe
		got, err := p.anyExited(context.Background(), "p1")
		if err != nil || got != tc.want {
			t.Errorf("exited %v: got %v, %v; want %v", tc.exited, got, err, tc.want)
		}
		if l, s := (*asked)["label"], (*asked)["status"]; len(l) != 1 || l[0] != "com.docker.compose.project=p1" || len(s) != 1 || s[0] != "exited" {
			t.Errorf("filters asked: %v", *asked)
		}
	}
}

func TestExitedProbeFallsBackToTheCLI(t *testing.T) {
	sock, _ := fakeEngine(t, http.StatusInternalServerError, nil)
	t.Setenv("DOCKER_HOST", "unix://"+sock)
	var p exitedProbe
	if _, err := p.anyExited(context.Background(), "p1"); err == nil {
		t.Error("an engine error gave an answer, not the CLI fallback")
	}
	t.Setenv("DOCKER_HOST", "tcp://127.0.0.1:2375")
	var remote exitedProbe
	if _, err := remote.anyExited(context.Background(), "p1"); err == nil {
		t.Error("a tcp engine was asked in-process; the CLI knows its TLS settings")
	}
}
