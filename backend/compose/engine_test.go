package compose

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/go-connections/nat"
	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/backend/orchestrator"
	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/internal/dockerapi"
)

// apiFake serves the three engine calls on a unix socket: the containers
// of project "p1" (alice running, bob exited), their documents, and
// alice's logs as the engine frames them without a TTY.
func apiFake(t *testing.T) (sock string, asked *[]string) {
	t.Helper()
	sock = filepath.Join(t.TempDir(), "docker.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no unix socket here: %v", err)
	}
	var got []string
	docs := map[string]container.InspectResponse{
		"aaa": {ContainerJSONBase: &container.ContainerJSONBase{ID: "aaa", Name: "/p1-alice-1", State: &container.State{Status: "running", Pid: 7}}},
		"bbb": {ContainerJSONBase: &container.ContainerJSONBase{ID: "bbb", Name: "/p1-bob-1",
			State: &container.State{Status: "exited", ExitCode: 137, OOMKilled: true}, HostConfig: &container.HostConfig{Resources: container.Resources{Memory: 128 << 20}}}},
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.Path+"?"+r.URL.RawQuery)
		switch {
		case r.URL.Path == "/containers/json":
			var f map[string][]string
			_ = json.Unmarshal([]byte(r.URL.Query().Get("filters")), &f)
			var list []container.Summary
			if slices.Equal(f["label"], []string{"com.docker.compose.project=p1"}) {
				if len(f["status"]) == 0 || f["status"][0] == "exited" {
					list = append(list, container.Summary{ID: "bbb"})
				}
				if len(f["status"]) == 0 && r.URL.Query().Get("all") == "1" {
					list = append(list, container.Summary{ID: "aaa"})
				}
			}
			_ = json.NewEncoder(w).Encode(list)
		case r.URL.Path == "/containers/aaa/logs":
			for _, frame := range []struct {
				stream byte
				text   string
			}{{1, "line one\n"}, {2, "error two\n"}} {
				hdr := make([]byte, 8)
				hdr[0] = frame.stream
				binary.BigEndian.PutUint32(hdr[4:], uint32(len(frame.text)))
				w.Write(append(hdr, frame.text...))
			}
		case strings.HasSuffix(r.URL.Path, "/json"):
			id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/containers/"), "/json")
			d, ok := docs[id]
			if !ok {
				w.WriteHeader(http.StatusNotFound)
				w.Write([]byte(`{"message":"No such container: ` + id + `"}`))
				return
			}
			_ = json.NewEncoder(w).Encode(d)
		default:
			http.NotFound(w, r)
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return sock, &got
}

func TestAPIEngine(t *testing.T) {
	sock, asked := apiFake(t)
	t.Setenv("DOCKER_HOST", "unix://"+sock)
	ctx := context.Background()
	e := newEngine(ctx)
	if _, ok := e.(*dockerapi.Engine); !ok {
		t.Fatalf("a unix socket engine: %T", e)
	}
	q := projectQuery("p1", "")
	q.Status = "exited"
	if ids, err := e.Containers(ctx, q); err != nil || !slices.Equal(ids, []string{"bbb"}) {
		t.Errorf("exited: %v, %v", ids, err)
	}
	if ids, err := e.Containers(ctx, projectQuery("p1", "")); err != nil || len(ids) != 2 {
		t.Errorf("all: %v, %v", ids, err)
	}
	docs, err := e.Inspect(ctx, "aaa", "bbb")
	if err != nil || len(docs) != 2 || docs[1].State.ExitCode != 137 {
		t.Fatalf("inspect: %+v, %v", docs, err)
	}
	if _, err := e.Inspect(ctx, "zzz"); err == nil || !strings.Contains(err.Error(), "No such container: zzz") {
		t.Errorf("missing container: %v", err)
	}
	if logs, err := e.Logs(ctx, "aaa", 5); err != nil || logs != "line one\nerror two\n" {
		t.Errorf("logs %q, %v", logs, err)
	}
	if !slices.ContainsFunc(*asked, func(a string) bool { return strings.Contains(a, "tail=5") }) {
		t.Errorf("tail not asked: %v", *asked)
	}
	// The backend reads a death as a typed state, not text.
	b := &Backend{project: "p1", started: map[string]bool{}}
	b.eng.e = e
	d := b.Death(ctx, "bob", orchestrator.Task{Container: "bbb"}, 3)
	if !d.OOM || d.ExitCode != 137 || d.MemoryLimit != 128<<20 || d.Reason != "exited" {
		t.Errorf("death %+v", d)
	}
}

// Engines the CLI reaches over tcp (its TLS settings) or ssh are asked
// through the CLI's dial-stdio: the same client as the CLI's own engine.
func TestRemoteEngineThroughTheCLI(t *testing.T) {
	t.Setenv("DOCKER_HOST", "tcp://127.0.0.1:2375")
	if e, ok := newEngine(context.Background()).(*dockerapi.Engine); !ok || e == nil {
		t.Fatalf("tcp engine: %T", newEngine(context.Background()))
	}
	if dockerapi.Client(dockerapi.CLIHost) == dockerapi.Client("") {
		t.Error("the CLI's engine shares the local socket's client")
	}
}

// fakeEngine answers from documents in memory.
type fakeEngine map[string]container.InspectResponse

func (f fakeEngine) Containers(context.Context, dockerapi.ContainerQuery) ([]string, error) {
	return slices.Sorted(func(yield func(string) bool) {
		for id := range f {
			if !yield(id) {
				return
			}
		}
	}), nil
}

func (f fakeEngine) Inspect(_ context.Context, ids ...string) ([]container.InspectResponse, error) {
	var out []container.InspectResponse
	for _, id := range ids {
		out = append(out, f[id])
	}
	return out, nil
}

func (f fakeEngine) Logs(context.Context, string, int) (string, error) { return "", nil }
func (f fakeEngine) Pause(context.Context, string) error               { return nil }
func (f fakeEngine) Unpause(context.Context, string) error             { return nil }

func TestAddressesAndPortsFromDocuments(t *testing.T) {
	doc := container.InspectResponse{
		ContainerJSONBase: &container.ContainerJSONBase{ID: "aaa", State: &container.State{Status: "running"}},
		Config:            &container.Config{Image: "lnbench/lnd:x"},
		NetworkSettings: &container.NetworkSettings{
			NetworkSettingsBase: container.NetworkSettingsBase{Ports: nat.PortMap{"10009/tcp": {{HostIP: "127.0.0.1", HostPort: "49153"}}}},
			Networks:            map[string]*network.EndpointSettings{"p1_default": {IPAddress: "172.18.0.3", Gateway: "172.18.0.1"}}},
	}
	b := &Backend{}
	b.eng.e = fakeEngine{"aaa": doc}
	ctx := context.Background()
	if ip, err := b.containerIP(ctx, "aaa"); err != nil || ip != "172.18.0.3" {
		t.Errorf("ip %q %v", ip, err)
	}
	task, err := b.Locate(ctx, "alice")
	if err != nil || !task.Running || published(task, 10009) != "127.0.0.1:49153" {
		t.Errorf("located %+v %v", task, err)
	}
	if hp := published(task, 9735); hp != "" {
		t.Errorf("an unpublished port read as published: %q", hp)
	}
	if img, err := b.imageOf(ctx, "aaa"); err != nil || img != "lnbench/lnd:x" {
		t.Errorf("image %q %v", img, err)
	}
	doc.NetworkSettings.Ports["10009/tcp"] = []nat.PortBinding{{HostIP: "0.0.0.0", HostPort: "49153"}}
	if _, err := b.Locate(ctx, "alice"); err == nil || !strings.Contains(err.Error(), "beyond loopback") {
		t.Errorf("a binding beyond loopback: %v", err)
	}
	// and it ends a start at once, not at the timeout
	b.opts.StartTimeout = time.Minute
	start := time.Now()
	if _, err := b.waiting().Ready(ctx, b, "node", "alice", func(orchestrator.Task) bool { return true }); err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("start with a binding beyond loopback: %v after %v", err, time.Since(start))
	}
	doc.NetworkSettings.Ports["10009/tcp"] = []nat.PortBinding{{HostIP: "127.0.0.1", HostPort: "49153"}}
	doc.NetworkSettings.Networks["other"] = &network.EndpointSettings{IPAddress: "10.0.9.4"}
	if _, err := b.containerIP(ctx, "aaa"); err == nil {
		t.Error("two networks read as one address")
	}
	doc.NetworkSettings.Networks["v6"] = &network.EndpointSettings{IPAddress: "fd00::3"}
	if got := b.containerAddrs(ctx, "aaa"); !slices.Equal(got, []string{"10.0.9.4", "172.18.0.3"}) {
		t.Errorf("IPv4 addresses in network order: %v", got)
	}
}

// The wait for a start: a container that never answers is a timeout with
// its log tail; one that exits is a death, reported at once.
func TestWaitReadyTimeoutAndDeath(t *testing.T) {
	running := container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{ID: "aaa", State: &container.State{Status: "running"}}}
	b := &Backend{opts: Options{NetworkOptions: composefile.NetworkOptions{StartTimeout: 300 * time.Millisecond}}}
	b.eng.e = fakeEngine{"aaa": running}
	_, err := b.waiting().Ready(context.Background(), b, "node", "alice", func(orchestrator.Task) bool { return false })
	if err == nil || !strings.Contains(err.Error(), "node alice did not start in time (start timeout 300ms)") {
		t.Errorf("timeout: %v", err)
	}
	exited := container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{ID: "aaa", State: &container.State{Status: "exited", ExitCode: 2}}}
	b.eng.e = fakeEngine{"aaa": exited}
	b.opts.StartTimeout = time.Minute
	start := time.Now()
	_, err = b.waiting().Ready(context.Background(), b, "node", "alice", func(orchestrator.Task) bool { return false })
	var dead *backend.DeadError
	if !errors.As(err, &dead) || dead.Deaths[0].ExitCode != 2 || time.Since(start) > 10*time.Second {
		t.Errorf("death: %v after %v", err, time.Since(start))
	}
}
