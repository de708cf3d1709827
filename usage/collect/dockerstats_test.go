package collect

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/usage"
)

// TestMain lets the test binary stand for the docker CLI: run as
// "docker -H HOST system dial-stdio", it connects its stdin and stdout to
// the unix socket in $FAKE_ENGINE_SOCK, as the CLI does to an engine.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "docker" {
		if !slices.Equal(os.Args[3:], []string{"system", "dial-stdio"}) || os.Args[1] != "-H" {
			os.Stderr.WriteString("fake docker: unexpected " + strings.Join(os.Args[1:], " "))
			os.Exit(2)
		}
		conn, err := net.Dial("unix", os.Getenv("FAKE_ENGINE_SOCK"))
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		go func() { io.Copy(conn, os.Stdin); conn.(*net.UnixConn).CloseWrite() }()
		io.Copy(os.Stdout, conn)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeEngine serves testdata/engine-stats.json for container abc on a unix
// socket and counts the connections it accepted.
func fakeEngine(t *testing.T) (sock string, conns *atomic.Int32) {
	t.Helper()
	sock = filepath.Join(t.TempDir(), "docker.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	conns = &atomic.Int32{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/containers/abc/stats" || r.URL.Query().Get("stream") != "false" || r.URL.Query().Get("one-shot") != "true" {
			http.Error(w, "unexpected "+r.URL.String(), http.StatusNotFound)
			return
		}
		data, _ := os.ReadFile("testdata/engine-stats.json")
		w.Write(data)
	}))
	srv.Listener = l
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return sock, conns
}

// An actor on another engine is read through that engine's socket.
func TestDockerStatsOfAnActorsEngine(t *testing.T) {
	sock, _ := fakeEngine(t)
	c := &Collector{CgroupRoot: t.TempDir(), ProcRoot: t.TempDir()}
	s, err := c.Sample(context.Background(), backend.Actor{Name: "bob", Role: usage.RoleNode, ContainerID: "abc", Engine: "unix://" + sock})
	if err != nil {
		t.Fatal(err)
	}
	if s.Source != usage.SourceDockerStats || s.CPUUserSeconds != 2.5 || s.NetRxBytes != 1000500 {
		t.Errorf("sample %+v", s)
	}
}

// An engine reached over ssh:// (or TLS) is asked through `docker system
// dial-stdio`, whose connection serves the next samples too.
func TestDockerStatsThroughDialStdio(t *testing.T) {
	sock, conns := fakeEngine(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(self, filepath.Join(bin, "docker")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	t.Setenv("FAKE_ENGINE_SOCK", sock)
	for i := 0; i < 3; i++ {
		s, err := DockerStats(context.Background(), "ssh://root@node2", "abc")
		if err != nil {
			t.Fatal(err)
		}
		if s.Source != usage.SourceDockerStats || s.CPUSysSeconds != 1 {
			t.Fatalf("sample %+v", s)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections (dial-stdio processes) for three samples, want one", n)
	}
	if _, err := DockerStats(context.Background(), "ssh://root@node2", "nosuch"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("unknown container: %v", err)
	}
}
