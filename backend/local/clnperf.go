package local

import (
	"fmt"
	"net"
	"net/http"

	"github.com/lnbench/lnbench/perfprof"
)

// servePerf serves perf profiles of a CLN node's process tree (lightningd,
// its subdaemons and plugins) in-process on a free loopback port: the
// sampler reads them as it reads LND's pprof. The PID is looked up at each
// request, so a restarted node is profiled too. It returns host:port.
func (b *Backend) servePerf(name string) (string, error) {
	port, err := allocated.next()
	if err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", hostPort(port))
	if err != nil {
		return "", fmt.Errorf("node %s: perf profile endpoint: %v", name, err)
	}
	h := &perfprof.Handler{Target: b.pidOf(name), Profiler: &perfprof.Profiler{Recorder: perfprof.Recorder{CallGraph: b.opts.PerfCallGraph}}}
	srv := &http.Server{Handler: h.Mux()}
	go srv.Serve(ln)
	b.mu.Lock()
	b.servers = append(b.servers, perfServer{srv, h})
	b.mu.Unlock()
	return ln.Addr().String(), nil
}

// pidOf finds a node's current process.
func (b *Backend) pidOf(name string) func() (int, error) {
	return func() (int, error) {
		b.mu.Lock()
		p := b.procs[name]
		b.mu.Unlock()
		if p == nil || p.exited() {
			return 0, fmt.Errorf("node %s is not running", name)
		}
		return p.cmd.Process.Pid, nil
	}
}

// perfServer is one CLN node's profile endpoint and the perf behind it.
type perfServer struct {
	srv *http.Server
	h   *perfprof.Handler
}

// closeServers ends the profile endpoints and their perf sessions.
func (b *Backend) closeServers() {
	b.mu.Lock()
	srvs := b.servers
	b.servers = nil
	b.mu.Unlock()
	for _, s := range srvs {
		s.srv.Close()
		s.h.Close()
	}
}
