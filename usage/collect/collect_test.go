package collect

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/usage"
)

var t0 = time.Date(2026, 11, 23, 18, 0, 0, 0, time.UTC)

func fixture(cg string) *Collector {
	return &Collector{CgroupRoot: "testdata/" + cg, ProcRoot: "testdata/proc", Now: func() time.Time { return t0 },
		DockerStats: func(context.Context, string, string) (usage.Sample, error) {
			return usage.Sample{}, errors.New("no engine in unit tests")
		}}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestCgroupV1(t *testing.T) {
	c := fixture("v1")
	s, err := c.Sample(context.Background(), backend.Actor{Name: "bob", Role: usage.RoleNode, ContainerID: "abc", CgroupPath: "/docker/abc"})
	if err != nil {
		t.Fatal(err)
	}
	want := usage.Sample{Time: t0, Actor: "bob", Role: "node", Source: usage.SourceCgroupV1,
		CPUUserSeconds: 3.2 * 2.5 / 3, CPUSysSeconds: 3.2 - 3.2*2.5/3, CPULimit: 0.5, CPUPeriods: 1200, CPUThrottled: 480,
		RSSBytes: 100<<20 - 4<<20, RSSPeakBytes: 150 << 20, MemLimitBytes: 512 << 20,
		ReadBytes: 4096, WriteBytes: 1048576 + 8192, ReadOps: 1, WriteOps: 202, IOSource: usage.IOCgroup}
	if near(s.CPUUserSeconds, want.CPUUserSeconds) && near(s.CPUSysSeconds, want.CPUSysSeconds) {
		s.CPUUserSeconds, s.CPUSysSeconds = want.CPUUserSeconds, want.CPUSysSeconds // float rounding
	}
	if s != want {
		t.Fatalf("v1:\n got %+v\nwant %+v", s, want)
	}
}

func TestCgroupV1PathsFromProc(t *testing.T) {
	// No path given: /proc/200/cgroup places the container; net bytes come
	// from its init process's namespace, loopback excluded.
	s, err := fixture("v1").Sample(context.Background(), backend.Actor{Name: "alice", ContainerID: "abc", PID: 200})
	if err != nil {
		t.Fatal(err)
	}
	if !near(s.CPUSeconds(), 3.2) || s.NetRxBytes != 1000500 || s.NetTxBytes != 250100 || s.Source != usage.SourceCgroupV1 {
		t.Fatalf("got %+v", s)
	}
}

func TestCgroupV1StatOnly(t *testing.T) {
	// Older kernels have only cpuacct.stat (USER_HZ ticks); the memory
	// controller missing is an error, not zeros.
	_, err := fixture("v1").Sample(context.Background(), backend.Actor{Name: "old", CgroupPath: "/docker/old"})
	if err == nil || !strings.Contains(err.Error(), "memory.usage_in_bytes") {
		t.Fatalf("missing memory controller: %v", err)
	}
	var s usage.Sample
	dir := func(ctl string) string { return "testdata/v1/" + ctl + "/docker/old" }
	if err := readV1(dir, &s); err == nil {
		t.Fatal("want the memory error")
	}
	if !near(s.CPUUserSeconds, 1.2) || !near(s.CPUSysSeconds, 0.3) {
		t.Fatalf("cpuacct.stat: %+v", s)
	}
}

func TestCgroupV2(t *testing.T) {
	s, err := fixture("v2").Sample(context.Background(), backend.Actor{Name: "btcd", Role: usage.RoleChain, ContainerID: "abc", CgroupPath: "/system.slice/docker-abc.scope"})
	if err != nil {
		t.Fatal(err)
	}
	want := usage.Sample{Time: t0, Actor: "btcd", Role: "chain", Source: usage.SourceCgroupV2,
		CPUUserSeconds: 2, CPUSysSeconds: 1, CPULimit: 1.5, CPUPeriods: 3000, CPUThrottled: 150,
		RSSBytes: 70<<20 - 2<<20, RSSPeakBytes: 90 << 20,
		ReadBytes: 8192, WriteBytes: 2097152 + 4096, ReadOps: 2, WriteOps: 301, IOSource: usage.IOCgroup}
	if s != want {
		t.Fatalf("v2:\n got %+v\nwant %+v", s, want)
	}
}

func TestDockerStatsFallback(t *testing.T) {
	c := fixture("v1")
	c.DockerStats = func(_ context.Context, _, id string) (usage.Sample, error) {
		f, err := os.Open("testdata/engine-stats.json")
		if err != nil {
			return usage.Sample{}, err
		}
		defer f.Close()
		return parseEngineStats(f)
	}
	s, err := c.Sample(context.Background(), backend.Actor{Name: "carol", ContainerID: "gone", CgroupPath: "/docker/gone"})
	if err != nil {
		t.Fatal(err)
	}
	want := usage.Sample{Time: t0, Actor: "carol", Source: usage.SourceDockerStats, CPUUserSeconds: 2.5, CPUSysSeconds: 1,
		RSSBytes: 100<<20 - 4<<20, RSSPeakBytes: 150 << 20, ReadBytes: 4096, WriteBytes: 1048576, ReadOps: 1, WriteOps: 200, IOSource: usage.IOEngine,
		NetRxBytes: 1000500, NetTxBytes: 250100}
	if s != want {
		t.Fatalf("fallback:\n got %+v\nwant %+v", s, want)
	}
}

func TestProcTree(t *testing.T) {
	c := fixture("v1")
	s, err := c.Sample(context.Background(), backend.Actor{Name: "alice", Role: usage.RoleNode, PID: 100})
	if err != nil {
		t.Fatal(err)
	}
	// lnd (250+75 ticks) plus its child (50+25 ticks).
	want := usage.Sample{Time: t0, Actor: "alice", Role: "node", Source: usage.SourceProc,
		CPUUserSeconds: 3, CPUSysSeconds: 1, RSSBytes: (102400 + 512) * 1024, RSSPeakBytes: 204800 * 1024,
		ReadBytes: 4096, WriteBytes: 8192 + 4096, ReadOps: 33, WriteOps: 44, IOSource: usage.IOProc, NetRxBytes: 1000500, NetTxBytes: 250100}
	if s != want {
		t.Fatalf("proc:\n got %+v\nwant %+v", s, want)
	}
	// The harness is measured alone: its children are the local nodes.
	h, err := c.Sample(context.Background(), backend.Actor{Name: "harness", Role: usage.RoleHarness, PID: 100})
	if err != nil || !near(h.CPUSeconds(), 3.25) || h.WriteOps != 40 {
		t.Fatalf("harness: %+v %v", h, err)
	}
}

func TestSnapshotKeepsWhatItRead(t *testing.T) {
	got, err := fixture("v1").Snapshot(context.Background(), []backend.Actor{{Name: "alice", PID: 100}, {Name: "ghost", PID: 999}, {Name: "bob", CgroupPath: "/docker/abc"}})
	if len(got) != 2 || got[0].Actor != "alice" || got[1].Actor != "bob" {
		t.Fatalf("samples: %+v", got)
	}
	if err == nil || !strings.Contains(err.Error(), "ghost") {
		t.Fatalf("error should name the unreadable actor: %v", err)
	}
}

func TestSelfIsReadable(t *testing.T) {
	// The real /proc: the harness's own counters parse and move.
	s, err := Default.Sample(context.Background(), backend.Actor{Name: "harness", Role: usage.RoleHarness, PID: os.Getpid()})
	if err != nil || s.RSSBytes <= 0 || s.Source != usage.SourceProc {
		t.Fatalf("self: %+v %v", s, err)
	}
}

func TestPprof(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/debug/pprof/goroutine":
			fmt.Fprint(w, "goroutine profile: total 321\n5 @ 0x1 0x2\n")
		case "/debug/pprof/heap":
			fmt.Fprint(w, "heap profile: 1: 2 [3: 4] @ heap/1048576\n\n# runtime.MemStats\n# Alloc = 100\n# HeapInuse = 7340032\n# Stack = 1\n")
		}
	}))
	defer srv.Close()
	c := fixture("v1")
	s, err := c.Sample(context.Background(), backend.Actor{Name: "alice", PID: 100, PprofHost: strings.TrimPrefix(srv.URL, "http://")})
	if err != nil || s.Goroutines != 321 || s.HeapBytes != 7340032 {
		t.Fatalf("pprof: %+v %v", s, err)
	}
}

func TestProcesses(t *testing.T) {
	cases := []struct {
		cg   string
		a    backend.Actor
		want string
	}{
		{"v1", backend.Actor{Name: "bob", CgroupPath: "/docker/abc"}, "[200 201]"},
		{"v1", backend.Actor{Name: "bob", ContainerID: "abc", PID: 200}, "[200 201]"},
		{"v2", backend.Actor{Name: "bob", CgroupPath: "/system.slice/docker-abc.scope"}, "[300]"},
		{"v1", backend.Actor{Name: "alice", PID: 100}, "[100 101]"},
		{"v1", backend.Actor{Name: "harness", Role: usage.RoleHarness, PID: 100}, "[100]"},
	}
	for _, tc := range cases {
		if got := fmt.Sprint(fixture(tc.cg).Processes(tc.a)); got != tc.want {
			t.Errorf("%s %+v: %s, want %s", tc.cg, tc.a, got, tc.want)
		}
	}
}

// Where the cgroup's blkio counters list no device (on some kernels they
// read "Total 0" for every cgroup, the root's too), the written bytes come
// from the processes of the cgroup; where those are unreadable as well,
// the sample says so instead of a zero that looks measured.
func TestBlockIOFallsBackToProcesses(t *testing.T) {
	s, err := fixture("v1").Sample(context.Background(), backend.Actor{Name: "bob", ContainerID: "zero", CgroupPath: "/docker/zero"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Source != usage.SourceCgroupV1 || s.IOSource != usage.IOProc || s.WriteBytes != 8192+4096 || s.ReadBytes != 4096 || s.WriteOps != 44 {
		t.Fatalf("fallback to /proc/<pid>/io of pids 100, 101: %+v", s)
	}
	s, err = fixture("v1").Sample(context.Background(), backend.Actor{Name: "bob", ContainerID: "zeroblind", CgroupPath: "/docker/zeroblind"})
	if err != nil {
		t.Fatal(err)
	}
	if s.IOSource != usage.IONone || s.WriteBytes != 0 || !near(s.CPUSeconds(), 3.2) {
		t.Fatalf("no source at all must say so (pid 200 has no io file): %+v", s)
	}
	// A process whose io is unreadable.
	s, err = fixture("v1").Sample(context.Background(), backend.Actor{Name: "x", PID: 105})
	if err != nil || s.IOSource != usage.IONone {
		t.Fatalf("proc without io: %+v %v", s, err)
	}
}

// An actor with no cgroup path is placed by its process's
// /proc/<pid>/cgroup (backend.ParseProcCgroups): the unified entry on v2,
// each controller's own line on v1, the actor's path for a controller the
// file does not list.
func TestCgroupPathFromProc(t *testing.T) {
	for _, tc := range []struct {
		name, cg, procCgroup, path string
		source                     string
		cpu                        float64
		err                        string
	}{
		{name: "v2", cg: "v2", procCgroup: "0::/system.slice/docker-abc.scope\n", source: usage.SourceCgroupV2, cpu: 3},
		{name: "v1", cg: "v1", procCgroup: "4:memory:/docker/abc\n3:blkio:/docker/abc\n2:cpuacct:/docker/abc\n1:cpu:/docker/abc\n0::/\n", source: usage.SourceCgroupV1, cpu: 3.2},
		{name: "v1, a controller unlisted", cg: "v1", procCgroup: "2:cpuacct:/docker/abc\n", path: "/docker/abc", source: usage.SourceCgroupV1, cpu: 3.2},
		{name: "v1, the memory controller elsewhere", cg: "v1", procCgroup: "4:memory:/docker/old\n2:cpuacct:/docker/abc\n", path: "/docker/abc", err: "docker/old/memory.usage_in_bytes"},
		{name: "v2, no entry", cg: "v2", procCgroup: "", err: "no cgroup path"},
		{name: "v1, no file", cg: "v1", err: "no cgroup path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proc := t.TempDir()
			if tc.procCgroup != "" {
				os.MkdirAll(proc+"/300", 0o755)
				os.WriteFile(proc+"/300/cgroup", []byte(tc.procCgroup), 0o644)
			}
			c := fixture(tc.cg)
			c.ProcRoot = proc
			var s usage.Sample
			err := c.readCgroup(backend.Actor{Name: "x", ContainerID: "abc", CgroupPath: tc.path, PID: 300}, &s)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one naming %q", err, tc.err)
				}
				return
			}
			if err != nil || s.Source != tc.source || !near(s.CPUSeconds(), tc.cpu) {
				t.Fatalf("got %+v %v, want source %s, %g CPU s", s, err, tc.source, tc.cpu)
			}
		})
	}
}
